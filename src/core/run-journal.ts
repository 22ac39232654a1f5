import type { OriginalTimes } from '../types/original-times.js';
import type { TreeNode } from './tree-node.js';
import type { WorkflowRuntime } from './workflow-runtime.js';

/**
 * How a step settled in an earlier attempt of the same durable run; `ran` is when it ran there
 * (absent where the journal kept no times), which the replayed step's node shows.
 */
export type StepReplay = (
  | { readonly status: 'completed'; readonly value: unknown }
  | { readonly status: 'failed'; readonly error: Error }
) & { readonly ran?: OriginalTimes };

/** The code a step runs and, for a decorated method, its arguments. */
export interface StepIdentity {
  readonly source: (...args: never[]) => unknown;
  readonly args?: readonly unknown[];
}

/** What `waitFor` needs of its schema: a zod schema fits. */
export interface WaitSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: unknown };
}

export interface WaitOptions {
  /** Milliseconds from the first time the run waited here; after that the wait throws. */
  readonly timeout?: number;
  /** The wait is a tool call's approval: its `waitStarted` event says which call. */
  readonly approval?: ApprovalRequest;
}

/** A tool call that waits for a person's approval before it runs. */
interface ApprovalRequest {
  readonly toolName: string;
  readonly toolUseId: string;
  readonly input: unknown;
}

/**
 * An extension point for the durable-run layer (`src/durable/runtime/`): core asks it before each step of a
 * durable run and tells it how the step settled, so core itself knows nothing of stores.
 */
export interface RunJournal {
  /** A workflow of the run starts (children included), in the order the code starts them. */
  workflowStarted(workflow: WorkflowRuntime): void;
  /**
   * Optional: when an earlier process first started `workflow` (a resumed run's root), so its node
   * spans the whole run; undefined when it starts now. Asked once its start was reported.
   */
  startedEarlier?(workflow: WorkflowRuntime): number | undefined;
  /**
   * The stored outcome of the step that `node` is, served instead of running its body. `identity`
   * is what the step's code and arguments were, so a changed step is reported, not replayed.
   */
  /** `recorded`: the step is marked to be served from a recording when one is replayed. */
  replayStep(workflow: WorkflowRuntime, node: TreeNode, identity: StepIdentity, recorded?: boolean): StepReplay | undefined;
  /**
   * Optional: asked before a step's body runs (after `replayStep` found nothing). Undefined when
   * the body may run at once; otherwise a promise to await first, whose rejection fails the step
   * without running its body (the run may no longer act: its lease was lost).
   */
  beforeStepBody?(workflow: WorkflowRuntime, node: TreeNode): Promise<void> | undefined;
  /** The step settled; the step's caller waits until it is stored. */
  stepSettled(workflow: WorkflowRuntime, node: TreeNode, outcome: StepReplay): Promise<void>;
  /**
   * Optional, for an engine that checkpoints steps itself (DBOS): the step's body goes through
   * the engine, which calls `body` or settles with the outcome it recorded; `replayStep` and
   * `stepSettled` are then not asked. Called when the step starts, in the order the code starts steps.
   */
  wrapStep?<R>(workflow: WorkflowRuntime, node: TreeNode, identity: StepIdentity, body: () => Promise<R>): Promise<R>;
  /** `ctx.waitFor`: the signal's value, or the run suspends. */
  waitFor<T>(workflow: WorkflowRuntime, node: TreeNode, name: string, schema: WaitSchema<T>, options: WaitOptions): Promise<T>;
}

// Keyed by the root workflow: the journal is data of the durable-run feature, not of Workflow.
const journals = new WeakMap<object, RunJournal>();
let attached = 0;

/** Attaches (or with undefined, detaches) the journal of the run that `root` is. */
export function setRunJournal(root: WorkflowRuntime, journal: RunJournal | undefined): void {
  const had = journals.has(root);
  if (journal === undefined) {
    if (had) attached -= 1;
    journals.delete(root);
    return;
  }
  if (!had) attached += 1;
  journals.set(root, journal);
}

/** The journal of the durable run `workflow` belongs to; one counter check when no run is durable. */
export function journalOf(workflow: WorkflowRuntime): RunJournal | undefined {
  return attached === 0 ? undefined : journals.get(workflow.root);
}
