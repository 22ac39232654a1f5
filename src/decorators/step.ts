import { runStep, type StepOptions } from '../core/run-step.js';
import type { Workflow } from '../core/workflow.js';
import { validateStepOptions } from '../core/config/step-options.js';
import { MethodCall } from '../core/method-call.js';
import { methodDecorator } from './method-decorator.js';
import './metadata.js';

export interface StepDecorator {
  <This extends Workflow, Args extends unknown[], R>(
    method: (this: This, ...args: Args) => Promise<R>,
    context: ClassMethodDecoratorContext<This, (this: This, ...args: Args) => Promise<R>>,
  ): (this: This, ...args: Args) => Promise<R>;
  <M extends (...args: never[]) => Promise<unknown>>(
    target: Workflow,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<M>,
  ): TypedPropertyDescriptor<M> | void;
}

/**
 * Makes an async method of a Workflow a step: a node in the tree with `stepStart`/`stepEnd`,
 * its body run in the step's scope, failures wrapped in `WorkflowError`.
 */
export function Step(options: StepOptions = {}): StepDecorator {
  validateStepOptions(options, '@Step', options?.name);
  return methodDecorator('@Step()', options.name, (workflow, name, method, args) =>
    runStep(workflow, name, options, new MethodCall(method, workflow, args)),
  ) as StepDecorator;
}
