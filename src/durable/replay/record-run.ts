import { randomUUID } from 'node:crypto';
import { runDurablyNext } from '../../core/durable-runner.js';
import type { Workflow } from '../../core/workflow.js';
import { MemoryRunStore } from '../memory/memory-store.js';
import { resumeWith } from '../runtime/run-durably.js';
import { exportRecording, writeRecording, type Recording } from './recording.js';

export interface RecordOptions {
  /** Where to write the recording (also when the run fails or suspends). */
  readonly file?: string;
  /** The recorded run's id (default a fresh one). */
  readonly runId?: string;
}

/** What a recorded run gave: its recording, and its result or why it did not finish. */
export type RecordedRun<T> = { readonly recording: Recording } & ({ readonly ok: true; readonly result: T } | { readonly ok: false; readonly error: unknown });

/**
 * Runs a workflow that is not durable as a recorded one: durably, on a store in memory, so every
 * step and agent call is kept (masked as the tree masks it) and the run comes back as a
 * recording, written to `file` when given, whether it completed, failed or suspended.
 */
export async function recordRun<T>(workflow: Workflow<T>, options: RecordOptions = {}): Promise<RecordedRun<T>> {
  const store = new MemoryRunStore();
  const runId = options.runId ?? `run_${randomUUID()}`;
  resumeWith(workflow, { store, runId });
  runDurablyNext(workflow);
  let outcome: { ok: true; result: T } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, result: await workflow.run() };
  } catch (error) {
    outcome = { ok: false, error };
  }
  try {
    const recording = await exportRecording(store, runId);
    if (options.file !== undefined) await writeRecording(options.file, recording);
    return { recording, ...outcome };
  } finally {
    await store.close();
  }
}
