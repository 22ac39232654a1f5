import { UsageError } from '../errors/groundswell-error.js';
import type { RunStore } from '../durable/run-store.js';
import { resume, type ResumeOptions } from './resume.js';
import { RunFinishedError, SignalValueError } from './replay-errors.js';
import { signalProblems, signalSchemaName } from './signal-schema.js';

export interface SignalOptions {
  readonly store: RunStore;
  /** With the run's workflow factories, the run resumes here at once and `signal` resolves to its result. */
  readonly workflows?: ResumeOptions['workflows'];
  readonly leaseMs?: number;
}

/**
 * Sends `value` to a durable run under `name`, from any process. A run that waits for it checks the
 * value with the wait's schema first: a value it refuses is a `SignalValueError` and nothing is
 * stored. With `workflows`, the run resumes in this process.
 */
export async function signal(runId: string, name: string, value: unknown, options: SignalOptions): Promise<unknown> {
  if (typeof name !== 'string' || name.trim() === '') throw new UsageError('signal() needs a non-empty signal name.');
  const { store } = options;
  // One read: loadRun refuses an unknown id with RunNotFoundError.
  const loaded = await store.loadRun(runId);
  const run = loaded.run;
  if (run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled') {
    throw new RunFinishedError(`Run "${runId}" has ${run.status === 'cancelled' ? 'been cancelled' : run.status}; it takes no more signals.`);
  }
  const schema = loaded.data[signalSchemaName(name)];
  if (schema !== undefined) {
    const problems = await signalProblems(schema, value);
    if (problems !== undefined) {
      throw new SignalValueError(`signal("${runId}", "${name}"): the value does not fit what the run waits for (${problems}); nothing was stored.`);
    }
  }
  await store.putSignal(runId, { name, value, at: Date.now() });
  if (options.workflows === undefined || run.status !== 'suspended') return undefined;
  return resume(runId, { store, workflows: options.workflows, ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}) });
}
