import { UsageError } from '../errors/groundswell-error.js';
import { describeValue } from '../util/describe.js';
import { EventTree } from './event-tree.js';
import type { WorkflowLogger } from './logger.js';
import { runStep, type StepOptions } from './run-step.js';
import { validateStepOptions } from './config/step-options.js';
import { Workflow } from './workflow.js';
import { guidanceAt } from './step-guidance.js';
import { currentScope, runInScope } from './scope.js';
import type { ChildOutcome, WorkflowResults } from './child-outcome.js';
import { mapItems, spawnAll } from './context-fan-out.js';
import type { FanOutOptions, ItemOutcome } from './fan-out.js';

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
  /**
   * Attaches every child under the current node, then runs them (`concurrency` at a time, in
   * order; default all at once) and resolves to their run results, typed and in input order. A
   * failure rejects once the started children settled, and no further child starts.
   */
  spawnAll<const W extends readonly Workflow[]>(children: W, options?: FanOutOptions & { settle?: 'throw' }): Promise<WorkflowResults<W>>;
  /** `settle: 'all'`: every child runs; resolves to each child's outcome (a failure rejects nothing). */
  spawnAll<W extends Workflow>(children: readonly W[], options: FanOutOptions & { settle: 'all' }): Promise<Array<ChildOutcome<W>>>;
  /** Options whose `settle` is not known statically: either shape. */
  spawnAll<const W extends readonly Workflow[]>(
    children: W,
    options?: FanOutOptions,
  ): Promise<WorkflowResults<W> | Array<ChildOutcome<W[number]>>>;
  /**
   * `fn(item, index)` for every item (`concurrency` at a time, in order; default all at once),
   * resolving to the values in input order: `ctx.map(files, (f) => ctx.step(f, () => read(f)), {
   * concurrency: 4 })`. A failure rejects once the started ones settled; nothing new starts.
   */
  map<T, R>(
    items: readonly T[],
    fn: (item: T, index: number) => R | PromiseLike<R>,
    options?: FanOutOptions & { settle?: 'throw' },
  ): Promise<Array<Awaited<R>>>;
  /** `settle: 'all'`: every item runs; resolves to each item's outcome. */
  map<T, R>(
    items: readonly T[],
    fn: (item: T, index: number) => R | PromiseLike<R>,
    options: FanOutOptions & { settle: 'all' },
  ): Promise<Array<ItemOutcome<T, Awaited<R>>>>;
  map<T, R>(
    items: readonly T[],
    fn: (item: T, index: number) => R | PromiseLike<R>,
    options?: FanOutOptions,
  ): Promise<Array<Awaited<R>> | Array<ItemOutcome<T, Awaited<R>>>>;
  /** The value of the last agent call that succeeded in this workflow (after any replacement). */
  readonly lastPromptResult: unknown;
  /**
   * Asks again with `prompt` and puts the new call where the last one was: the old node hangs
   * beneath the new one (a replacement, not a fork), and `lastPromptResult` is the new value.
   */
  replaceLastPromptResult<T>(prompt: AskedPrompt<T>, agent: PromptAsker): Promise<T>;
  /** Guidance a workflow-level reflection left for the step running now (empty on a first attempt). */
  readonly reflection: { readonly guidance: readonly string[] };
}

/**
 * What `replaceLastPromptResult` needs of a prompt and an agent. Core does not know the agent
 * layer: a `Prompt<T>` and an `Agent` fit structurally, and `T` is the prompt's answer type.
 * @public (in public signatures; knip)
 */
export interface AskedPrompt<T> {
  readonly responseFormat: { parse(data: unknown): T };
}
/** @public (in public signatures; knip) */
export interface PromptAsker {
  prompt<T>(prompt: AskedPrompt<T>): Promise<T>;
}

const NO_OPTIONS: StepOptions = Object.freeze({});

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
    step(name, fn, options) {
      if (typeof name !== 'string' || name.length === 0) {
        throw new UsageError(`ctx.step needs a non-empty name, got ${describeValue(name)}.`);
      }
      if (typeof fn !== 'function') {
        throw new UsageError(`ctx.step("${name}") needs a function, got ${describeValue(fn)}.`);
      }
      // Checked only when given: the common ctx.step(name, fn) pays nothing.
      if (options !== undefined) validateStepOptions(options, 'ctx.step', name);
      return runStep(workflow, name, options ?? NO_OPTIONS, fn);
    },
    get lastPromptResult() {
      return workflow.lastPromptCall?.value;
    },
    get reflection() {
      return { guidance: guidanceAt(currentScope()?.node) };
    },
    async replaceLastPromptResult<T>(prompt: AskedPrompt<T>, agent: PromptAsker): Promise<T> {
      const last = workflow.lastPromptCall;
      const parent = last?.node.parent;
      if (last === undefined || parent === null || parent === undefined) {
        throw new UsageError(
          `replaceLastPromptResult: workflow "${workflow.name}" has no earlier agent result to replace; call an agent first.`,
        );
      }
      // The new call mounts beside the old one, then takes its place.
      const value = await runInScope({ workflow, node: parent }, () => agent.prompt(prompt));
      const replacement = workflow.lastPromptCall?.node;
      // (A node already pruned by retention cannot be moved; then the new call simply follows it.)
      if (replacement !== undefined && replacement !== last.node && parent.replaceChild(last.node, replacement)) {
        workflow.emit(replacement, { type: 'promptReplaced', replacedNodeId: last.node.id });
      }
      return value;
    },
    spawnAll: ((children: unknown, options?: FanOutOptions) => spawnAll(workflow, children, options)) as WorkflowContext['spawnAll'],
    map: ((items: readonly unknown[], fn: (item: unknown, index: number) => unknown, options?: FanOutOptions) =>
      mapItems(workflow, items, fn, options)) as WorkflowContext['map'],
    async spawnWorkflow(child) {
      if (!(child instanceof Workflow)) {
        throw new UsageError(`ctx.spawnWorkflow needs a Workflow, got ${describeValue(child)}.`);
      }
      if (child.parent !== workflow) workflow.attachChild(child);
      return child.run();
    },
  };
}
