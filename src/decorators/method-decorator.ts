import { UsageError } from '../errors/groundswell-error.js';
import { Workflow } from '../core/workflow.js';
import { describeValue } from '../util/describe.js';
import { isStandardContext, memberLabel, wrongMember } from './decorator-mode.js';

type AnyMethod = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Wraps a method body; `self` is the workflow the decorated method was called on. The wrapper
 * calls `method` on `self` with `args` itself: no closure is made per call.
 */
export type MethodWrapper = (self: Workflow, name: string, method: AnyMethod, args: unknown[]) => Promise<unknown>;

/**
 * Applies one wrapper in either decorator mode: TC39 `(method, context)` or legacy
 * `(prototype, key, descriptor)`. Both paths end in the same wrapped function.
 */
export function methodDecorator(decorator: string, explicitName: string | undefined, wrapper: MethodWrapper) {
  const wrap = (method: AnyMethod, name: string): AnyMethod =>
    function decorated(this: unknown, ...args: unknown[]) {
      if (!(this instanceof Workflow)) {
        return Promise.reject(
          new UsageError(`${decorator} method "${name}" was called on ${describeValue(this)}; it must be a Workflow.`),
        );
      }
      return wrapper(this, name, method, args);
    };

  return function apply(...args: unknown[]): unknown {
    const [first, second, third] = args;
    if (isStandardContext(second)) {
      if (second.kind !== 'method') throw wrongMember(decorator, 'methods', String(second.name), second.kind);
      if (second.static) throw wrongMember(decorator, 'instance methods', String(second.name), 'static method');
      return wrap(first as AnyMethod, explicitName ?? String(second.name));
    }
    const key = second as PropertyKey;
    const descriptor = third as PropertyDescriptor | undefined;
    const label = memberLabel(first, key);
    if (descriptor === undefined || typeof descriptor.value !== 'function') {
      throw wrongMember(decorator, 'methods', label, descriptor?.get || descriptor?.set ? 'accessor' : 'field');
    }
    if (typeof first === 'function') throw wrongMember(decorator, 'instance methods', label, 'static method');
    descriptor.value = wrap(descriptor.value as AnyMethod, explicitName ?? String(key));
    return descriptor;
  };
}
