import { UsageError } from '../../errors/groundswell-error.js';
import { requireName, requireRunId } from './run-id.js';
import { RUN_STATUSES, type NewRun, type RunRecord, type RunStatus } from './run-record.js';
import type { CallRecord, SignalRecord, StepRecord } from './stored-records.js';

/** Throws a `UsageError` unless `status` is a `RunStatus`. */
export function requireStatus(status: unknown): RunStatus {
  if (!RUN_STATUSES.includes(status as RunStatus)) {
    throw new UsageError(`Run status must be one of ${RUN_STATUSES.join(', ')}, got ${JSON.stringify(status)}.`);
  }
  return status as RunStatus;
}

/** The record a store keeps for `createRun(run)` at `now`, after checking the id, name and status. */
export function newRunRecord(run: NewRun, now: number): RunRecord {
  const id = requireRunId(run?.id);
  requireName('A run rootName', run.rootName);
  const record: RunRecord = { id, rootName: run.rootName, status: requireStatus(run.status ?? 'running'), createdAt: now, updatedAt: now };
  if (run.input !== undefined) record.input = run.input;
  if (run.codeVersion !== undefined) record.codeVersion = run.codeVersion;
  return record;
}

function requireTime(what: string, at: unknown): void {
  if (typeof at !== 'number' || !Number.isFinite(at)) throw new UsageError(`${what} must be a finite number (epoch ms).`);
}

/** Original start and end are optional (older records have none); when given, finite. */
function optionalTimes(what: string, record: { startedAt?: unknown; endedAt?: unknown }): void {
  if (record.startedAt !== undefined) requireTime(`${what} startedAt`, record.startedAt);
  if (record.endedAt !== undefined) requireTime(`${what} endedAt`, record.endedAt);
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
  optionalTimes(`Step "${step.key}"`, step);
  if (step.state !== undefined && (typeof step.state !== 'object' || step.state === null || Array.isArray(step.state))) {
    throw new UsageError(`Step "${step.key}": state must be an object of field values.`);
  }
  if (step.stateUnset !== undefined && (!Array.isArray(step.stateUnset) || !step.stateUnset.every((name) => typeof name === 'string'))) {
    throw new UsageError(`Step "${step.key}": stateUnset must be an array of field names.`);
  }
}

export function checkCall(call: CallRecord): void {
  requireObject('A call record', call);
  requireName('A call key', call.key);
  requireObject(`Call "${call.key}" usage`, call.usage);
  if (typeof call.model !== 'string') throw new UsageError(`Call "${call.key}": model must be a string.`);
  requireTime(`Call "${call.key}" at`, call.at);
  optionalTimes(`Call "${call.key}"`, call);
}

export function checkSignal(signal: SignalRecord): void {
  requireObject('A signal record', signal);
  requireName('A signal name', signal.name);
  requireTime(`Signal "${signal.name}" at`, signal.at);
}
