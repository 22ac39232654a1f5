import { UsageError } from '../../errors/groundswell-error.js';
import { encodeJson } from '../store/encode-json.js';
import { checkCall, checkSignal, checkStep, requireStatus } from '../store/record-input.js';
import { requireName, requireRunId } from '../store/run-id.js';
import type { RunRecord } from '../store/run-record.js';
import type { CallRecord, SignalRecord, StepRecord, StoredEvent } from '../store/stored-records.js';
import { newMemoryRun, type MemoryRun } from './memory-run.js';

/**
 * One run to pre-fill a `MemoryRunStore` with (`MemoryRunStore.from`): what `loadRun` gives, plus
 * the events as `readEvents` gives them. So a run read from any store is copied into memory with
 * `{ ...(await other.loadRun(id)), events: await other.readEvents(id) }`.
 */
export interface MemoryRunSeed {
  /** The whole record, its times included (kept as given). */
  run: RunRecord;
  /** In the order they were written; a key appears once. */
  steps?: readonly StepRecord[];
  calls?: readonly CallRecord[];
  signals?: readonly SignalRecord[];
  data?: Readonly<Record<string, unknown>>;
  /** Numbered 1, 2, 3... in order, as `readEvents` numbers them. */
  events?: readonly StoredEvent[];
  tree?: unknown;
}

/** The run `seed` describes, each record checked and encoded as a write of it would be. */
export function seedRun(seed: MemoryRunSeed, now: () => number): MemoryRun {
  if (typeof seed !== 'object' || seed === null) throw new UsageError('A MemoryRunStore seed must be an object with a run record.');
  const run = checkRunRecord(seed.run);
  const memory = newMemoryRun(encodeJson(run, `Run "${run.id}"`), now);
  const where = `Seed of run "${run.id}"`;
  for (const step of list<StepRecord>(seed.steps, `${where}: steps`)) {
    checkStep(step);
    if (memory.steps.has(step.key)) throw new UsageError(`${where}: the step "${step.key}" appears twice; a key is written once.`);
    memory.steps.set(step.key, encodeJson(step, `Step "${step.key}"`));
  }
  for (const call of list<CallRecord>(seed.calls, `${where}: calls`)) {
    checkCall(call);
    if (memory.calls.has(call.key)) throw new UsageError(`${where}: the call "${call.key}" appears twice; a key is written once.`);
    memory.calls.set(call.key, encodeJson(call, `Call "${call.key}"`));
  }
  for (const signal of list<SignalRecord>(seed.signals, `${where}: signals`)) {
    checkSignal(signal);
    memory.signals.push(encodeJson(signal, `Signal "${signal.name}"`));
  }
  if (seed.data !== undefined) {
    if (typeof seed.data !== 'object' || seed.data === null || Array.isArray(seed.data)) throw new UsageError(`${where}: data must be an object of values by name.`);
    for (const [name, value] of Object.entries(seed.data)) memory.data.set(requireName('A data name', name), encodeJson(value, `Data "${name}"`));
  }
  list<StoredEvent>(seed.events, `${where}: events`).forEach((stored, i) => {
    if (stored?.seq !== i + 1) throw new UsageError(`${where}: event ${i} has seq ${String(stored?.seq)}; events are numbered 1, 2, 3... in order.`);
    memory.events.push(encodeJson(stored.event, `Event ${i} of run "${run.id}"`));
  });
  if (seed.tree !== undefined) memory.tree = encodeJson(seed.tree, `The tree of run "${run.id}"`);
  return memory;
}

function list<T>(value: readonly T[] | undefined, what: string): readonly T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new UsageError(`${what} must be an array.`);
  return value;
}

/** The fields readers of a run record rely on; the values are checked by `encodeJson`. */
function checkRunRecord(run: RunRecord): RunRecord {
  if (typeof run !== 'object' || run === null) throw new UsageError('A MemoryRunStore seed must hold a run record (`run`).');
  requireRunId(run.id);
  requireName('A run rootName', run.rootName);
  requireStatus(run.status);
  for (const field of ['createdAt', 'updatedAt'] as const) {
    if (typeof run[field] !== 'number' || !Number.isFinite(run[field])) throw new UsageError(`Run "${run.id}": ${field} must be a finite number (epoch ms).`);
  }
  return run;
}
