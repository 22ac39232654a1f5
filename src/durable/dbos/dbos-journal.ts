import { METERED } from '../../budgets/budget-amounts.js';
import { amountsOfSubtree, bookBelow, bookReplayedCall } from '../../budgets/earlier-spending.js';
import { ledgersAbove } from '../../budgets/node-budgets.js';
import { UsageError } from '../../errors/groundswell-error.js';
import type { CallJournal } from '../../agent/call-journal.js';
import type { PromptCall, PromptOutcome } from '../../agent/prompt-call.js';
import type { RunJournal, StepIdentity, StepReplay } from '../../core/run-journal.js';
import type { TreeNode } from '../../core/tree-node.js';
import type { Workflow } from '../../core/workflow.js';
import type { DbosLike, DbosQueueLike } from './dbos-like.js';
import { recordCall, replayCall, type RecordedCall } from './recorded-call.js';
import type { RelayWriter } from './relay-writer.js';
import { readStepRecord, stepRecord } from './step-record.js';

/**
 * The journal of a groundswell run that is a DBOS workflow: DBOS's system database is the run's
 * only journal. Each step and agent call started in the workflow's own context is a DBOS step
 * (`DBOS.runStep`): run once and recorded, or answered from the record when DBOS recovers the
 * workflow. Work inside a step is part of that step, as DBOS has it.
 */
export class DbosJournal implements RunJournal, CallJournal {
  // How many children() calls each mount point made: part of the children's deterministic ids.
  private readonly launches = new Map<string, number>();

  constructor(
    private readonly dbos: DbosLike,
    readonly workflowID: string,
    private readonly relay: RelayWriter | undefined,
    /** Starts children on a queue for this run (the registry that runs it knows the workflows). */
    readonly launchChildren: (
      queue: DbosQueueLike,
      workflow: string | ((input: never) => unknown),
      inputs: readonly unknown[],
      share: 'split' | 'whole',
    ) => Promise<unknown[]>,
  ) {}

  workflowStarted(): void {}

  replayStep(): StepReplay | undefined {
    return undefined;
  }

  async stepSettled(): Promise<void> {}

  waitFor<T>(workflow: Workflow, _node: TreeNode, name: string): Promise<T> {
    return Promise.reject(
      new UsageError(`Workflow "${workflow.name}": waitFor("${name}") is not available in a DBOS run; use DBOS.recv / DBOS.send for outside input.`),
    );
  }

  async wrapStep<R>(_workflow: Workflow, node: TreeNode, _identity: StepIdentity, body: () => Promise<R>): Promise<R> {
    if (!this.dbos.isInWorkflow()) return body();
    let ran = false;
    const recorded = await this.dbos.runStep<unknown>(
      () => {
        ran = true;
        return this.relayed(() => withSpending(node, body));
      },
      { name: `step:${node.name}` },
    );
    const { value, spent } = readStepRecord(recorded);
    // Replayed: neither its own calls nor its children run here, so what they spent is booked instead.
    if (!ran && spent !== undefined) bookBelow(node, spent);
    return value as R;
  }

  replayCall(): PromptOutcome<never> | undefined {
    return undefined;
  }

  async callCompleted(): Promise<void> {}

  async wrapCall<T>(call: PromptCall<T>, run: () => Promise<PromptOutcome<T>>): Promise<PromptOutcome<T>> {
    if (!this.dbos.isInWorkflow()) return run();
    let live: PromptOutcome<T> | undefined;
    const recorded = await this.dbos.runStep<RecordedCall>(
      () =>
        this.relayed(async () => {
          live = await run();
          return recordCall(call, live);
        }),
      { name: `agent:${call.agentName}` },
    );
    if (live !== undefined) return live;
    const replayed = replayCall(call, recorded);
    // Answered from the record: what it cost when it ran still counts against the budgets above it.
    bookReplayedCall(call.budgets, recorded.usage, recorded.requests, replayed.toolCalls.length);
    return replayed;
  }

  /** A deterministic id for the `index`th child of a children() call under `mount`. */
  childId(mountPath: string, launch: number, name: string, index: number): string {
    return `${this.workflowID}/${mountPath}#${launch}/${name}#${index}`;
  }

  /** Numbers the children() calls under one mount point, in the order the code makes them. */
  nextLaunch(mountPath: string): number {
    const n = this.launches.get(mountPath) ?? 0;
    this.launches.set(mountPath, n + 1);
    return n;
  }

  // The run's events so far reach its followers while the step runs and before DBOS records it.
  private relayed<R>(body: () => Promise<R>): Promise<R> {
    return this.relay === undefined ? body() : this.relay.during(body);
  }
}

/**
 * Runs a DBOS step's body. Under a budget, its output is recorded with what the work below the
 * step spent (its agent and tool calls, and the trees of DBOS children grafted under it), so a
 * process that replays the step books it. Other steps record their value alone.
 */
async function withSpending<R>(node: TreeNode, body: () => Promise<R>): Promise<unknown> {
  const value = await body();
  if (ledgersAbove(node).length === 0) return value;
  const spent = amountsOfSubtree(node.children.map((child) => child.toJSON()));
  return METERED.some((dimension) => spent[dimension] > 0) ? stepRecord(value, spent) : value;
}
