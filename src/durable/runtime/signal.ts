import { randomUUID } from 'node:crypto';
import { closestKey } from '../../checks/closest-key.js';
import { UsageError } from '../../errors/groundswell-error.js';
import { isSuspension } from '../../errors/predicates.js';
import type { RunStore } from '../store/run-store.js';
import { RunNotFoundError } from '../store/run-store-errors.js';
import { resume, type ResumeOptions } from './resume.js';
import { RunFinishedError, SignalNameError, SignalValueError } from './replay-errors.js';
import { onSignalRejected } from './signal-rejections.js';
import { signalProblems } from './signal-schema.js';

export interface SignalOptions {
  readonly store: RunStore;
  /** With the run's workflow factories, the run resumes here at once and `signal` resolves to its result. */
  readonly workflows?: ResumeOptions['workflows'];
  readonly leaseMs?: number;
  /**
   * Store the signal even though the suspended run waits for another name: it is meant for a
   * wait the run reaches later. Without it such a signal is a `SignalNameError`.
   */
  readonly ahead?: boolean;
}

/**
 * Sends `value` to a durable run under `name`, from any process. A run that waits for it checks the
 * value with the wait's schema (as JSON Schema) first: a value it refuses is a `SignalValueError`
 * and nothing is stored. With `workflows`, the run resumes in this process, where the wait's real
 * schema checks the value again: a value it refuses is a `SignalValueError` too, and the run stays
 * suspended. A signal never fails a run.
 *
 * A suspended run waiting for another name refuses the signal with a `SignalNameError` (nothing is
 * stored) unless `ahead` is set. A running run is not checked: what it waits for next is not
 * known until it suspends, so a signal sent to it is stored for whichever wait takes that name.
 */
export async function signal(runId: string, name: string, value: unknown, options: SignalOptions): Promise<unknown> {
  if (typeof name !== 'string' || name.trim() === '') throw new UsageError('signal() needs a non-empty signal name.');
  const { store } = options;
  // The run record only: sending a signal costs the same whatever the run holds already.
  const run = await store.getRun(runId);
  if (run === undefined) throw new RunNotFoundError(runId);
  if (run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled') {
    throw new RunFinishedError(`Run "${runId}" has ${run.status === 'cancelled' ? 'been cancelled' : run.status}; it takes no more signals.`);
  }
  const waited = run.status === 'suspended' ? run.waitingFor?.name : undefined;
  if (waited !== undefined && waited !== name && options.ahead !== true) {
    const near = closestKey(name, [waited]);
    throw new SignalNameError(
      `signal("${runId}", "${name}"): the run waits for signal "${waited}", not "${name}"${near === undefined ? '' : ` (did you mean "${near}"?)`}; ` +
        'nothing was stored. To store a signal for a wait the run reaches later, pass { ahead: true }.',
      waited,
      near,
    );
  }
  const schema = run.waitingFor?.name === name ? run.waitingFor.schema : undefined;
  if (schema !== undefined) {
    const problems = await signalProblems(schema, value);
    if (problems !== undefined) {
      throw new SignalValueError(`signal("${runId}", "${name}"): the value does not fit what the run waits for (${problems}); nothing was stored.`);
    }
  }
  const id = randomUUID();
  await store.putSignal(runId, { id, name, value, at: Date.now() });
  if (options.workflows === undefined || run.status !== 'suspended') return undefined;
  let rejected: string | undefined;
  const stop = onSignalRejected(id, (reason) => (rejected = reason));
  try {
    return await resume(runId, { store, workflows: options.workflows, ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}) });
  } catch (error) {
    if (rejected !== undefined && isSuspension(error)) {
      throw new SignalValueError(`signal("${runId}", "${name}"): the waiting step refused the value (${rejected}); the run still waits.`, { cause: error });
    }
    throw error;
  } finally {
    stop();
  }
}
