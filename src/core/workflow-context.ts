import { UsageError } from '../errors/groundswell-error.js';
import { describeValue } from '../util/describe.js';
import { EventTree } from './event-tree.js';
import type { WorkflowLogger } from './logger.js';
import { runStep, validateStepOptions, type StepOptions } from './run-step.js';
import { Workflow } from './workflow.js';

/** What a functional workflow's executor receives. */
export interface WorkflowContext {
  readonly workflowId: string;
  readonly parentWorkflowId: string | undefined;
  readonly workflow: Workflow;
  readonly logger: WorkflowLogger;
  /** Aborts when the workflow is cancelled. */
  readonly signal: AbortSignal;
  readonly eventTree: EventTree;
  /** A step node under whatever is running now; usable in loops, conditionals and Promise.all. */
  step<R>(name: string, fn: () => R | Promise<R>, options?: Omit<StepOptions, 'name'>): Promise<Awaited<R>>;
  /** Attaches `child` under the current node (if it is not already a child) and runs it. */
  spawnWorkflow<R>(child: Workflow<R>): Promise<R>;
}

export function createContext(workflow: Workflow): WorkflowContext {
  const eventTree = new EventTree(() => workflow.root.node);
  return {
    workflowId: workflow.id,
    get parentWorkflowId() {
      return workflow.parent?.id;
    },
    workflow,
    logger: workflow.logger,
    get signal() {
      return workflow.signal;
    },
    eventTree,
    step(name, fn, options = {}) {
      if (typeof name !== 'string' || name.length === 0) {
        throw new UsageError(`ctx.step needs a non-empty name, got ${describeValue(name)}.`);
      }
      if (typeof fn !== 'function') {
        throw new UsageError(`ctx.step("${name}") needs a function, got ${describeValue(fn)}.`);
      }
      validateStepOptions(options, name);
      return runStep(workflow, name, options, fn);
    },
    async spawnWorkflow(child) {
      if (!(child instanceof Workflow)) {
        throw new UsageError(`ctx.spawnWorkflow needs a Workflow, got ${describeValue(child)}.`);
      }
      if (child.parent !== workflow) workflow.attachChild(child);
      return child.run();
    },
  };
}
