import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { UsageError } from '../../errors/groundswell-error.js';
import { isSuspension } from '../../errors/predicates.js';
import { setRunJournal } from '../../core/run-journal.js';
import type { DurableSetting } from '../../core/durable-setting.js';
import type { TreeNode } from '../../core/tree-node.js';
import type { Workflow } from '../../core/workflow.js';
import type { LoadedRun, RunStore } from '../store/run-store.js';
import { serializeError } from '../../util/serialize-error.js';
import { RunExistsError, RunStoreError, RunValueError } from '../store/run-store-errors.js';
import { RunInterruptedError } from './run-interrupted-error.js';
import { DurableRun } from './durable-run.js';
import { RunFinishedError } from './replay-errors.js';
import { LeaseKeeper } from './lease-keeper.js';
import type { ReplayCheck } from './replay-check.js';

const DEFAULT_LEASE_MS = 30_000;
const FINAL = new Set(['completed', 'failed', 'cancelled']);

// The run each workflow instance is (for `runIdOf` and for the agent layer's lookup).
const runs = new WeakMap<Workflow, DurableRun>();
// Set by `resume()` for the next run of a workflow it created.
const resumes = new WeakMap<Workflow, ResumeSetting>();

/** What `resume()` sets for the next run: the store and run, and whether to take the arguments from the store. */
export interface ResumeSetting extends DurableSetting {
  readonly storedArgs?: boolean;
  /** The lease is taken whoever holds it (`resume({ takeOver: true })`). */
  readonly takeOver?: boolean;
  /** Set by a replay: the run is checked against its recording and never reaches a model. */
  readonly replay?: ReplayCheck;
}

/** The durable run `workflow` is part of, while it runs. */
export function durableRunOf(workflow: Workflow): DurableRun | undefined {
  return runs.get(workflow.root);
}

/** The id of the durable run of `workflow` (its root), while it runs or after. */
export function runIdOf(workflow: Workflow): string | undefined {
  return runs.get(workflow.root)?.runId;
}

export function resumeWith(workflow: Workflow, setting: ResumeSetting): void {
  resumes.set(workflow, setting);
}

/** Creates the run unless the store has it; true when this call created it. */
/** A store failure that reached the runner directly (the run's own first writes): the run stops resumable. */
function interruptionOf(runId: string, error: unknown): RunInterruptedError | undefined {
  if (error instanceof RunInterruptedError) return error;
  if (error instanceof RunStoreError && !(error instanceof RunValueError)) {
    return new RunInterruptedError(runId, `a write to its store failed (${error.message})`, { cause: error });
  }
  return undefined;
}

/** Whether nothing was stored for the run since it was created (no step, call, signal or data). */
function untouched(loaded: LoadedRun): boolean {
  return loaded.run.status === 'running' && loaded.steps.length === 0 && loaded.calls.length === 0 && loaded.signals.length === 0 && Object.keys(loaded.data).length === 0;
}

async function createIfAbsent(store: RunStore, runId: string, rootName: string, setting: DurableSetting): Promise<boolean> {
  if ((await store.getRun(runId)) !== undefined) return false;
  try {
    await store.createRun({ id: runId, rootName, ...(setting.input !== undefined ? { input: setting.input } : {}) });
    return true;
  } catch (error) {
    // Another process created it between the two calls: it is an existing run now.
    if (error instanceof RunExistsError) return false;
    throw error;
  }
}

/**
 * The durable runner core calls for a root with `durable`: creates (or reopens) the run, holds its
 * lease while it runs, attaches the journal, and stores how the run ended.
 */
export async function runDurably<T>(workflow: Workflow<T>, args: readonly unknown[], run: (storedArgs?: readonly unknown[]) => Promise<T>): Promise<T> {
  // A resume names the store and run; the workflow's own option still sets the rest (leaseMs).
  const resumed = resumes.get(workflow);
  const setting = resumed === undefined ? workflow.config.durable : { ...workflow.config.durable, ...resumed };
  resumes.delete(workflow);
  if (setting === undefined) return run();
  const store = setting.store as RunStore;
  const runId = setting.runId ?? `run_${randomUUID()}`;
  const created = await createIfAbsent(store, runId, workflow.name, setting);
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const leaseMs = setting.leaseMs ?? DEFAULT_LEASE_MS;
  // The lease first, then the read: a resumer that waited for another one to finish must see
  // what that one stored, never replay from a copy read before it.
  const asked = LeaseKeeper.now(workflow.clock);
  const lease = await store.acquireLease(runId, owner, leaseMs, resumed?.takeOver === true ? { takeOver: true } : undefined);
  let loaded: LoadedRun | undefined;
  try {
    // Read even a run this call created: a process paused between the two could find the run
    // taken, run and even finished by another one meanwhile.
    loaded = await store.loadRun(runId);
    if (created && untouched(loaded)) {
      loaded = undefined;
      if (args.length > 0) await store.putData(runId, 'args', args, lease);
    } else {
      const existing = loaded.run;
      if (FINAL.has(existing.status)) {
        throw new RunFinishedError(`Run "${runId}" has ${existing.status === 'cancelled' ? 'been cancelled' : existing.status}; a finished run is not run again.`);
      }
      if (existing.rootName !== workflow.name) {
        throw new UsageError(`Run "${runId}" belongs to workflow "${existing.rootName}", not "${workflow.name}".`);
      }
    }
  } catch (error) {
    await lease.release().catch(() => undefined);
    throw error;
  }
  const journal = new DurableRun(store, runId, workflow, loaded, lease, resumed?.replay);
  const keeper = new LeaseKeeper(lease, leaseMs, workflow.clock, asked, (lost) => journal.interrupt(lost));
  journal.keepLeaseWith(keeper);
  const unsubscribe = workflow.addObserver({ onEvent: (event, node) => journal.recordEvent(event, node as TreeNode | undefined) });
  runs.set(workflow, journal);
  setRunJournal(workflow, journal);
  try {
    if (loaded?.run.status === 'suspended') await journal.stored(store.updateRun(runId, { status: 'running', waitingFor: null }, lease));
    // A resume leaves the arguments to this read: they were stored when the run was created.
    const result = await (resumed?.storedArgs === true ? run(Array.isArray(loaded?.data.args) ? loaded.data.args : []) : run());
    await journal.flush();
    // A run whose lease was lost meanwhile stores nothing more: its outcome is the new holder's.
    const lost = journal.interruption;
    if (lost !== undefined) throw lost;
    await journal.stored(store.updateRun(runId, { status: 'completed', result: result === undefined ? null : result, usage: journal.usage }, lease));
    return result;
  } catch (error) {
    const stopped = journal.interruption ?? interruptionOf(runId, error);
    if (stopped !== undefined) {
      // Lost lease or the store's own trouble: nothing final is stored, so the run stays resumable.
      throw stopped === error ? error : stopped;
    }
    await journal.flush().catch(() => undefined);
    if (!isSuspension(error)) {
      await store
        .updateRun(runId, { status: workflow.isCancelled ? 'cancelled' : 'failed', error: serializeError(error), usage: journal.usage }, lease)
        .catch(() => undefined);
    }
    throw error;
  } finally {
    keeper.stop();
    unsubscribe();
    setRunJournal(workflow, undefined);
    await journal.storeTree().catch(() => undefined);
    await lease.release().catch(() => undefined);
  }
}
