import type { StepIdentity } from './run-journal.js';
import { keepShape } from '../util/lasting-shape.js';

/**
 * One call of a decorated method: the method, the workflow it was called on and its arguments.
 * A step runs it without a closure per call, and it is the step's identity for a durable journal
 * as it stands (the method's code and its arguments).
 */
export class MethodCall implements StepIdentity {
  constructor(
    readonly source: (...args: never[]) => unknown,
    readonly self: object,
    readonly args: readonly unknown[],
  ) {}
}

/** Runs the call; a plain function, so a scope can run it with the call as its one argument. */
export function invokeMethodCall(call: MethodCall): unknown {
  return (call.source as (...args: unknown[]) => unknown).apply(call.self, call.args as unknown[]);
}

// Every call dies with its step: one is kept, so its shape (and the code using it) outlives them.
keepShape(new MethodCall(invokeMethodCall, {}, []));
