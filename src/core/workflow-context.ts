import { UsageError } from '../errors/groundswell-error.js';
import { describeValue } from '../util/describe.js';
import { EventTree } from './event-tree.js';
import type { WorkflowLogger } from './logger.js';
import { runStep, type StepOptions } from './run-step.js';
import { validateStepOptions } from './config/step-options.js';
import { guidanceAt } from './step-guidance.js';
import { currentScope } from './scope.js';
import { waitForSignal } from './wait-for.js';
import type { WaitOptions, WaitSchema } from './run-journal.js';
import type { RunResult, RunResults, SettledChild } from './child-results.js';
import { mapItems, spawnAll } from './context-fan-out.js';
import type { FanOutOptions, ItemOutcome } from './fan-out.js';
import { lastPromptResult, replaceLastPromptResult, type AskedPrompt, type PromptAsker } from './last-prompt.js';
import { isWorkflow, type WorkflowRuntime } from './workflow-runtime.js';

/**
 * What a functional workflow's executor receives, over the workflow class `W`: the public
 * `WorkflowContext` (workflow.ts) is this over `Workflow`. Generic so that this file, which
 * `Workflow` imports, does not import the class back (decision 0030).
 */
export interface WorkflowContextOf<W extends WorkflowRuntime> {
  readonly workflowId: string;
  readonly parentWorkflowId: string | undefined;
  readonly workflow: W;
  readonly logger: WorkflowLogger;
  /** Aborts when the workflow is cancelled. */
  readonly signal: AbortSignal;
  readonly eventTree: EventTree;
  /** A step node under whatever is running now; usable in loops, conditionals and Promise.all. */
  step<R>(name: string, fn: () => R | Promise<R>, options?: Omit<StepOptions, 'name'>): Promise<Awaited<R>>;
  /** Attaches `child` under the current node (if it is not already a child) and runs it. */
  spawnWorkflow<C extends W>(child: C): Promise<RunResult<C>>;
  /**
   * Attaches every child under the current node, then runs them (`concurrency` at a time, in
   * order; default all at once) and resolves to their run results, typed and in input order. A
   * failure rejects once the started children settled, and no further child starts.
   */
  spawnAll<const L extends readonly W[]>(children: L, options?: FanOutOptions & { settle?: 'throw' }): Promise<RunResults<L>>;
  /** `settle: 'all'`: every child runs; resolves to each child's outcome (a failure rejects nothing). */
  spawnAll<C extends W>(children: readonly C[], options: FanOutOptions & { settle: 'all' }): Promise<Array<SettledChild<C>>>;
  /** Options whose `settle` is not known statically: either shape. */
  spawnAll<const L extends readonly W[]>(
    children: L,
    options?: FanOutOptions,
  ): Promise<RunResults<L> | Array<SettledChild<L[number]>>>;
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
  /**
   * In a durable run: the value of signal `name` (checked with `schema`), or the run is stored as
   * `suspended` and `run()` rejects with `RunSuspendedError` until `signal()` resumes it.
   */
  waitFor<T>(name: string, schema: WaitSchema<T>, options?: WaitOptions): Promise<T>;
}

const NO_OPTIONS: StepOptions = Object.freeze({});

export function createContext<W extends WorkflowRuntime>(workflow: W): WorkflowContextOf<W> {
  const eventTree = new EventTree(() => workflow.root.node);
  return {
    workflowId: workflow.id,
    get parentWorkflowId() {
      return workflow.parent?.id;
    },
    workflow,
    // Made on first use: most executors never log, and a logger per child adds up in a fan-out.
    get logger() {
      return workflow.logger;
    },
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
      return lastPromptResult(workflow);
    },
    get reflection() {
      return { guidance: guidanceAt(currentScope()?.node) };
    },
    replaceLastPromptResult: (prompt, agent) => replaceLastPromptResult(workflow, prompt, agent),
    waitFor(name, schema, options) {
      return waitForSignal(workflow, name, schema, options);
    },
    spawnAll: ((children: unknown, options?: FanOutOptions) => spawnAll(workflow, children, options)) as WorkflowContextOf<W>['spawnAll'],
    map: ((items: readonly unknown[], fn: (item: unknown, index: number) => unknown, options?: FanOutOptions) =>
      mapItems(workflow, items, fn, options)) as WorkflowContextOf<W>['map'],
    // Not async: the child's run is the promise (an async wrapper would add one per child); a
    // refusal still rejects rather than throws.
    spawnWorkflow<C extends W>(child: C): Promise<RunResult<C>> {
      try {
        if (!isWorkflow(child)) {
          throw new UsageError(`ctx.spawnWorkflow needs a Workflow, got ${describeValue(child)}.`);
        }
        if (child.parent !== workflow) workflow.attachChild(child);
        return child.run() as Promise<RunResult<C>>;
      } catch (refused) {
        return Promise.reject(refused);
      }
    },
  };
}
