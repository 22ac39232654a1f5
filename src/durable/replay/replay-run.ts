import { runDurablyNext } from '../../core/durable-runner.js';
import { Workflow } from '../../core/workflow.js';
import { UsageError } from '../../errors/groundswell-error.js';
import { describeValue } from '../../util/describe.js';
import { isSuspension } from '../../errors/predicates.js';
import { lineDiff } from '../../util/line-diff.js';
import { MemoryRunStore } from '../memory/memory-store.js';
import type { WorkflowFactory } from '../runtime/resume.js';
import { resumeWith } from '../runtime/run-durably.js';
import { checkRecording, readRecording, type Recording } from './recording.js';
import { RecordingCheck } from './recording-check.js';
import { replayStore } from './replay-store.js';
import { ReplayDivergenceError, type ReplayDivergence } from './replay-divergence.js';

export interface ReplayOptions {
  /** A factory per root workflow name, as `resume()` takes them: the current code under test. */
  readonly workflows: Readonly<Record<string, WorkflowFactory>>;
}

/** What a replay found: the same run, or where it first went another way. */
export type ReplayResult =
  | { readonly same: true; readonly result: unknown }
  | { readonly same: false; readonly divergence: ReplayDivergence };

/**
 * Runs the current code against a recording with the network closed: step bodies run again, and
 * every agent call is served from the recording (a call it lacks, or one that asks differently,
 * stops the run there). Resolves to `{ same: true }` or the first divergence; the recording (a
 * file path or a `Recording`) is only read.
 */
export async function replayRun(recording: Recording | string, options: ReplayOptions): Promise<ReplayResult> {
  const recorded = typeof recording === 'string' ? await readRecording(recording) : checkRecording(recording);
  const { run } = recorded;
  const factory = Object.hasOwn(options.workflows, run.rootName) ? options.workflows[run.rootName] : undefined;
  if (typeof factory !== 'function') {
    throw new UsageError(`replayRun: no factory for workflow "${run.rootName}" in options.workflows (it has: ${Object.keys(options.workflows).join(', ') || 'none'}).`);
  }
  // The run as it began: its calls and signals to serve, its stored arguments; of its steps only
  // those marked `recorded` (served as they were), so every other body runs again.
  const seed = {
    steps: recorded.steps.filter((step) => step.recorded === true),
    calls: recorded.calls,
    signals: recorded.signals,
    data: recorded.data.args === undefined ? {} : { args: recorded.data.args },
  };
  const memory = MemoryRunStore.from({
    run: { id: run.id, rootName: run.rootName, ...(run.input !== undefined ? { input: run.input } : {}), status: 'running', createdAt: run.createdAt, updatedAt: run.createdAt },
    ...seed,
  });
  const store = replayStore(memory, run.id, seed);
  const check = new RecordingCheck(recorded);
  const workflow = factory(run.input, { runId: run.id, store });
  if (!(workflow instanceof Workflow)) throw new UsageError(`replayRun: the factory for "${run.rootName}" returned ${describeValue(workflow)}, not a Workflow.`);
  resumeWith(workflow, { store, runId: run.id, storedArgs: true, replay: check });
  runDurablyNext(workflow);
  let result: unknown;
  let failure: unknown;
  try {
    result = await workflow.run();
  } catch (error) {
    const divergence = divergenceIn(error);
    if (divergence !== undefined) return { same: false, divergence };
    failure = error;
  } finally {
    await store.close();
  }
  // A replay that failed where the recorded run completed went another way there first (a
  // budget the served calls no longer fit): the steps it then never reached follow from it.
  if (failure !== undefined && run.status === 'completed') return { same: false, divergence: outcomeDivergence(recorded, failure, result) as ReplayDivergence };
  const missed = check.finish();
  if (missed !== undefined) return { same: false, divergence: missed };
  const outcome = outcomeDivergence(recorded, failure, result);
  return outcome === undefined ? { same: true, result } : { same: false, divergence: outcome };
}

/** The divergence that stopped a run, found along the error's causes. */
function divergenceIn(error: unknown): ReplayDivergence | undefined {
  const seen = new Set<unknown>();
  for (let at = error; at instanceof Error && !seen.has(at); at = (at as { cause?: unknown }).cause) {
    seen.add(at);
    if (at instanceof ReplayDivergenceError) return at.divergence;
  }
  return undefined;
}

/** How the replay ended against how the recorded run ended (a run still going ends as it may). */
function outcomeDivergence(recording: Recording, failure: unknown, result: unknown): ReplayDivergence | undefined {
  const { run } = recording;
  const root = `/${run.rootName}`;
  const now = failure === undefined ? 'completed' : 'failed';
  if ((run.status === 'completed' || run.status === 'failed') && run.status !== now) {
    const detail = failure instanceof Error ? `: ${failure.message}` : '';
    return {
      kind: 'outcome',
      key: root,
      path: run.rootName,
      parts: [{ part: 'status', recorded: run.status, current: now, diff: lineDiff(run.status, now) }],
      summary: `Replay diverged: the recorded run ${run.status}, the replay ${now}${detail}.`,
    };
  }
  if (run.status === 'completed' && JSON.stringify(run.result ?? null) !== JSON.stringify(result === undefined ? null : result)) {
    const recorded = JSON.stringify(run.result ?? null, null, 2);
    const current = JSON.stringify(result === undefined ? null : result, null, 2) ?? String(result);
    return { kind: 'outcome', key: root, path: run.rootName, parts: [{ part: 'result', recorded: run.result, current: result, diff: lineDiff(recorded, current) }], summary: 'Replay diverged: the run returned another result.' };
  }
  // Suspended where the recording was suspended: the same run, waiting for the same signal.
  if (failure !== undefined && !(run.status === 'failed' || (run.status === 'suspended' && isSuspension(failure)))) throw failure;
  return undefined;
}
