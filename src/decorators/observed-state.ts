import { registerObservedField as register } from '../core/observed-fields.js';
import { ownMetadataOf } from '../util/class-metadata.js';
import { isStandardContext, memberLabel, wrongMember } from './decorator-mode.js';
import { validateObservedStateOptions } from './observed-state-options.schema.js';

export interface ObservedStateOptions {
  /** Leave the field out of snapshots entirely. */
  hidden?: boolean;
  /** Show the field as '***' everywhere: snapshots, errors, debugger output, exports. */
  redact?: boolean;
}

export interface FieldDecorator {
  <This, Value>(value: undefined, context: ClassFieldDecoratorContext<This, Value>): void;
  (target: object, key: string | symbol): void;
}

/** Marks a field as part of the workflow's observed state. */
export function ObservedState(options: ObservedStateOptions = {}): FieldDecorator {
  validateObservedStateOptions(options);
  const flags = { hidden: options.hidden === true, redact: options.redact === true };
  return function observedState(...args: unknown[]): void {
    const [first, second] = args;
    if (isStandardContext(second)) {
      if (second.kind !== 'field') {
        throw wrongMember('@ObservedState()', 'fields', String(second.name), second.kind);
      }
      const context = second as ClassFieldDecoratorContext;
      if (context.static) {
        throw wrongMember('@ObservedState()', 'instance fields', String(context.name), 'static field');
      }
      const get = context.access.get as (instance: unknown) => unknown;
      const set = context.access.set as (instance: unknown, value: unknown) => void;
      register(context.metadata as Record<PropertyKey, unknown>, {
        key: context.name,
        ...flags,
        read: (instance) => get(instance),
        write: (instance, value) => set(instance, value),
      });
      return;
    }
    const key = second as PropertyKey;
    const descriptor = args[2] as PropertyDescriptor | undefined;
    if (descriptor !== undefined && typeof first === 'object' && first !== null) {
      const kind = typeof descriptor.value === 'function' ? 'method' : 'accessor';
      throw wrongMember('@ObservedState()', 'fields', memberLabel(first, key), kind);
    }
    if (typeof first === 'function') {
      throw wrongMember('@ObservedState()', 'instance fields', memberLabel(first, key), 'static member');
    }
    const constructor = (first as { constructor: object }).constructor;
    register(ownMetadataOf(constructor), {
      key,
      ...flags,
      read: (instance) => (instance as Record<PropertyKey, unknown>)[key],
      write: (instance, value) => {
        (instance as Record<PropertyKey, unknown>)[key] = value;
      },
    });
  } as FieldDecorator;
}
