import { UsageError } from '../errors/groundswell-error.js';
import { requireName } from './run-id.js';
import { RUN_STATUSES, type RunStatus } from './run-record.js';
import type { CallRecord, SignalRecord, StepRecord } from './stored-records.js';

/** Throws a `UsageError` unless `status` is a `RunStatus`. */
export function requireStatus(status: unknown): RunStatus {
  if (!RUN_STATUSES.includes(status as RunStatus)) {
    throw new UsageError(`Run status must be one of ${RUN_STATUSES.join(', ')}, got ${JSON.stringify(status)}.`);
  }
  return status as RunStatus;
}

function requireTime(what: string, at: unknown): void {
  if (typeof at !== 'number' || !Number.isFinite(at)) throw new UsageError(`${what} must be a finite number (epoch ms).`);
}

function requireObject(what: string, value: unknown): void {
  if (typeof value !== 'object' || value === null) throw new UsageError(`${what} must be an object.`);
}

/** Checks the shape a store relies on; values are checked by `encodeJson`. */
export function checkStep(step: StepRecord): void {
  requireObject('A step record', step);
  requireName('A step key', step.key);
  if (step.status !== 'completed' && step.status !== 'failed') {
    throw new UsageError(`Step "${step.key}": status must be "completed" or "failed".`);
  }
  requireTime(`Step "${step.key}" at`, step.at);
}

export function checkCall(call: CallRecord): void {
  requireObject('A call record', call);
  requireName('A call key', call.key);
  requireObject(`Call "${call.key}" usage`, call.usage);
  if (typeof call.model !== 'string') throw new UsageError(`Call "${call.key}": model must be a string.`);
  requireTime(`Call "${call.key}" at`, call.at);
}

export function checkSignal(signal: SignalRecord): void {
  requireObject('A signal record', signal);
  requireName('A signal name', signal.name);
  requireTime(`Signal "${signal.name}" at`, signal.at);
}
