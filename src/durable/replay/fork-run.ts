import { randomUUID } from 'node:crypto';
import { UsageError } from '../../errors/groundswell-error.js';
import { resume, type WorkflowFactory } from '../runtime/resume.js';
import type { RunStore } from '../store/run-store.js';
import type { CallRecord, StepRecord } from '../store/stored-records.js';
import { checkRecording, readRecording, type Recording } from './recording.js';
import { readableStepKey } from './step-path.js';

export interface ForkOptions {
  /** The step to fork at, by its key (`/Pipeline#0:second#0`) or its path (`Pipeline › second`): it and all after it run live. */
  readonly at: string;
  /** A factory per root workflow name: the changed code, prompt or model the rest runs with. */
  readonly workflows: Readonly<Record<string, WorkflowFactory>>;
  /** Where the new run is stored (the same store as the recording, or another one). */
  readonly store: RunStore;
  /** The new run's id (default a fresh one). */
  readonly runId?: string;
}

/** A fork: the new run's id, and how it ended. */
export interface ForkResult {
  readonly runId: string;
  readonly result: unknown;
}

/**
 * Starts a new run from a recording: what the recorded run did before the step `at` is copied
 * into it, so it is served as recorded (whatever the code there is now) with no model request and
 * no side effect, and from `at` on the run goes live with the current code. The recording (and the run it came from) is never written; a fork's
 * own recording can be forked again.
 */
export async function forkRun(recording: Recording | string, options: ForkOptions): Promise<ForkResult> {
  const recorded = typeof recording === 'string' ? await readRecording(recording) : checkRecording(recording);
  const { run } = recorded;
  const at = forkPoint(recorded.steps, options.at);
  const cutoff = at.startedAt ?? at.at;
  const atIndex = recorded.steps.indexOf(at);
  // What had settled when `at` started: stored before it (a step enclosing `at` settles after it,
  // so it runs again) and ended by then (a concurrent sibling stored earlier may have started later).
  const steps = recorded.steps.filter((step, index) => index < atIndex && (step.endedAt ?? step.at) <= cutoff);
  const kept = new Set(steps.map((step) => step.key));
  const calls = recorded.calls.filter((call) => keepCall(call, kept, cutoff));
  const runId = options.runId ?? `${run.id}-fork-${randomUUID().slice(0, 8)}`;
  const { store } = options;
  // Created as failed and opened only once the whole prefix is in: a fork killed (or refused a
  // write) while copying is never resumed, which would run the uncopied part of the prefix live.
  await store.createRun({
    id: runId,
    rootName: run.rootName,
    status: 'failed',
    ...(run.input !== undefined ? { input: run.input } : {}),
    ...(run.codeVersion !== undefined ? { codeVersion: run.codeVersion } : {}),
  });
  const lease = await store.acquireLease(runId, `fork:${randomUUID().slice(0, 8)}`, 30_000);
  try {
    if (recorded.data.args !== undefined) await store.putData(runId, 'args', recorded.data.args, lease);
    // Served as recorded, whatever the code there is now (a fork changes what comes after): no
    // fingerprint, so a changed step body before the fork point is not a mismatch.
    for (const { fingerprint: _step, ...step } of steps) await store.putStep(runId, step, lease);
    for (const { fingerprint: _call, ...call } of calls) await store.putCall(runId, call, lease);
    // Signals the recorded run got before the fork point; later ones are the fork's to receive.
    for (const signal of recorded.signals) if (signal.at <= cutoff) await store.putSignal(runId, signal);
    await store.updateRun(runId, { status: 'running' }, lease);
  } finally {
    await lease.release();
  }
  const result = await resume(runId, { store, workflows: options.workflows });
  return { runId, result };
}

/** A call inside a step goes with its step; one made outside any step, when it ended before the fork point. */
function keepCall(call: CallRecord, keptSteps: ReadonlySet<string>, cutoff: number): boolean {
  const owner = call.key.slice(0, call.key.lastIndexOf('/agent:'));
  const inStep = owner.lastIndexOf(':') > owner.lastIndexOf('/');
  return inStep ? keptSteps.has(owner) : (call.endedAt ?? call.at) <= cutoff;
}

/** The recorded step `at` names, by key or by readable path. */
function forkPoint(steps: readonly StepRecord[], at: string): StepRecord {
  const found = steps.find((step) => step.key === at) ?? steps.find((step) => readableStepKey(step.key) === at);
  if (found === undefined) {
    const known = steps.slice(0, 8).map((step) => `"${readableStepKey(step.key)}"`).join(', ');
    throw new UsageError(`forkRun: the recording has no step "${at}" (its steps include ${known || 'none'}); give a step's key or path.`);
  }
  return found;
}
