import { runTask, type TaskOptions, type TaskResult } from '../core/run-task.js';
import type { Workflow } from '../core/workflow.js';
import { validateTaskOptions } from '../core/config/task-options.js';
import { methodDecorator } from './method-decorator.js';
import './metadata.js';

export interface TaskDecorator {
  <This extends Workflow, Args extends unknown[], R extends TaskResult>(
    method: (this: This, ...args: Args) => Promise<R>,
    context: ClassMethodDecoratorContext<This, (this: This, ...args: Args) => Promise<R>>,
  ): (this: This, ...args: Args) => Promise<R>;
  <M extends (...args: never[]) => Promise<TaskResult>>(
    target: Workflow,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<M>,
  ): TypedPropertyDescriptor<M> | void;
}

/**
 * Makes an async method that returns child workflows a task: they are attached under a task node
 * and run (concurrently with `concurrent: true`); the method resolves to them once all settled.
 */
export function Task(options: TaskOptions = {}): TaskDecorator {
  validateTaskOptions(options, options?.name);
  return methodDecorator('@Task()', options.name, (workflow, name, method, args) =>
    runTask(workflow, name, options, () => method.apply(workflow, args) as Promise<TaskResult>),
  ) as TaskDecorator;
}
