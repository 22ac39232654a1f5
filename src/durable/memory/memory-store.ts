import { UsageError } from '../../errors/groundswell-error.js';
import { applyRunPatch } from '../store/apply-run-patch.js';
import { encodeEvents } from '../store/encode-events.js';
import { encodeJson } from '../store/encode-json.js';
import { matchesQuery } from '../store/list-runs-query.js';
import { checkCall, checkSignal, checkStep, newRunRecord } from '../store/record-input.js';
import { requireName, requirePositiveInteger, requireRunId } from '../store/run-id.js';
import type { NewRun, RunPatch, RunRecord } from '../store/run-record.js';
import type { AcquireLeaseOptions, AppendedEvents, Lease, LeaseHolder, ListRunsQuery, LoadedRun, RunStore, SettledStep } from '../store/run-store.js';
import { RunExistsError, RunNotFoundError, RunStoreError } from '../store/run-store-errors.js';
import type { CallRecord, SignalRecord, StepRecord, StoredEvent } from '../store/stored-records.js';
import { newMemoryRun, type MemoryRun } from './memory-run.js';
import { seedRun, type MemoryRunSeed } from './memory-seed.js';
import type { MemoryRunStoreOptions } from './memory-store-options.js';

/**
 * A run store in process memory: for tests, for runs not meant to outlive the process, and for
 * replaying a recorded run without touching a disk (`MemoryRunStore.from`). It keeps the whole
 * `RunStore` contract, fencing included. Values are checked by `encodeJson` as every store checks
 * them and kept as the JSON text that made, so nothing a caller holds is shared with the store;
 * each read parses a copy. Every method does its work synchronously, so writes never interleave.
 */
export class MemoryRunStore implements RunStore {
  private readonly clock: { now(): number };
  private readonly runs = new Map<string, MemoryRun>();
  private closed = false;

  constructor(options: MemoryRunStoreOptions = {}) {
    if (options.clock !== undefined && typeof options.clock?.now !== 'function') throw new UsageError('MemoryRunStore `clock` must have a now() method.');
    this.clock = options.clock ?? Date;
  }

  /**
   * A store holding `runs` already, without leases or writes: what a replay starts from. Each
   * record is checked as a write of it would be (a value JSON cannot hold is a `RunValueError`);
   * a run id or a step or call key given twice is a `UsageError`.
   */
  static from(runs: MemoryRunSeed | readonly MemoryRunSeed[], options?: MemoryRunStoreOptions): MemoryRunStore {
    const store = new MemoryRunStore(options);
    const now = (): number => store.clock.now();
    for (const seed of Array.isArray(runs) ? (runs as readonly MemoryRunSeed[]) : [runs as MemoryRunSeed]) {
      const memory = seedRun(seed, now);
      if (store.runs.has(memory.run.id)) throw new UsageError(`MemoryRunStore.from: run "${memory.run.id}" is given twice.`);
      store.runs.set(memory.run.id, memory);
    }
    return store;
  }

  async createRun(run: NewRun): Promise<RunRecord> {
    this.requireOpen();
    const record = newRunRecord(run, this.clock.now());
    const text = encodeJson(record, `Run "${record.id}"`);
    if (this.runs.has(record.id)) throw new RunExistsError(record.id);
    this.runs.set(record.id, newMemoryRun(text, () => this.clock.now()));
    return JSON.parse(text) as RunRecord;
  }

  async updateRun(id: string, patch: RunPatch, fence?: Lease): Promise<RunRecord> {
    const memory = this.runOf(id);
    const text = encodeJson(applyRunPatch(memory.run, patch ?? {}, this.clock.now()), `Run "${id}"`);
    memory.lease.check(fence, 'a change of its record');
    memory.runText = text;
    memory.run = JSON.parse(text) as RunRecord;
    return JSON.parse(text) as RunRecord;
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    this.requireOpen();
    const memory = this.runs.get(requireRunId(id));
    return memory === undefined ? undefined : (JSON.parse(memory.runText) as RunRecord);
  }

  async listRuns(query: ListRunsQuery = {}): Promise<RunRecord[]> {
    this.requireOpen();
    requirePositiveInteger('listRuns limit', query.limit, true);
    if (query.rootName !== undefined && typeof query.rootName !== 'string') throw new UsageError('listRuns rootName must be a string.');
    const found = [...this.runs.values()].filter((memory) => matchesQuery(memory.run, query));
    // Newest first; ties by id, descending, as the journal store orders them.
    found.sort((a, b) => b.run.createdAt - a.run.createdAt || (a.run.id < b.run.id ? 1 : a.run.id > b.run.id ? -1 : 0));
    const kept = query.limit === undefined ? found : found.slice(0, query.limit);
    return kept.map((memory) => JSON.parse(memory.runText) as RunRecord);
  }

  async loadRun(id: string): Promise<LoadedRun> {
    const memory = this.runOf(id);
    const data: Record<string, unknown> = {};
    for (const [name, text] of memory.data) {
      // Defined, not assigned: a data name `__proto__` is a name like any other.
      Object.defineProperty(data, name, { value: JSON.parse(text), writable: true, enumerable: true, configurable: true });
    }
    const loaded: LoadedRun = {
      run: JSON.parse(memory.runText) as RunRecord,
      steps: parseAll<StepRecord>(memory.steps.values()),
      calls: parseAll<CallRecord>(memory.calls.values()),
      signals: parseAll<SignalRecord>(memory.signals),
      data,
    };
    if (memory.tree !== undefined) loaded.tree = JSON.parse(memory.tree);
    return loaded;
  }

  async putStep(runId: string, step: StepRecord, fence?: Lease): Promise<boolean> {
    checkStep(step);
    const text = encodeJson(step, `Step "${step.key}"`);
    const memory = this.runOf(runId);
    memory.lease.check(fence, `the step "${step.key}"`);
    return putOnce(memory.steps, step.key, text);
  }

  async putCall(runId: string, call: CallRecord, fence?: Lease): Promise<boolean> {
    checkCall(call);
    const text = encodeJson(call, `Call "${call.key}"`);
    const memory = this.runOf(runId);
    memory.lease.check(fence, `the call "${call.key}"`);
    return putOnce(memory.calls, call.key, text);
  }

  async appendEvents(runId: string, events: readonly unknown[], fence?: Lease): Promise<AppendedEvents> {
    const texts = encodeEvents(runId, events);
    const memory = this.runOf(runId);
    memory.lease.check(fence, `an append of ${texts.length} event${texts.length === 1 ? '' : 's'}`);
    return append(memory, texts);
  }

  /** Both encoded before either is kept, so a refused value writes nothing. */
  async settleStep(runId: string, step: StepRecord, events: readonly unknown[], fence?: Lease): Promise<SettledStep> {
    checkStep(step);
    const texts = encodeEvents(runId, events);
    const text = encodeJson(step, `Step "${step.key}"`);
    const memory = this.runOf(runId);
    memory.lease.check(fence, `the step "${step.key}" (settled with ${texts.length} event${texts.length === 1 ? '' : 's'})`);
    const appended = append(memory, texts);
    return { written: putOnce(memory.steps, step.key, text), events: appended };
  }

  async readEvents(runId: string, options: { after?: number; limit?: number } = {}): Promise<StoredEvent[]> {
    const memory = this.runOf(runId);
    const after = options.after ?? 0;
    if (typeof after !== 'number' || Number.isNaN(after)) throw new UsageError(`readEvents after must be a number, got ${String(after)}.`);
    requirePositiveInteger('readEvents limit', options.limit, true);
    // Event `seq` is index + 1, so the first one past `after` is at floor(after) (0 for a negative after).
    const start = Math.max(0, Math.floor(after));
    const end = options.limit === undefined ? memory.events.length : Math.min(memory.events.length, start + options.limit);
    const out: StoredEvent[] = [];
    for (let i = start; i < end; i += 1) out.push({ seq: i + 1, event: JSON.parse(memory.events[i] as string) });
    return out;
  }

  async putSignal(runId: string, signal: SignalRecord): Promise<void> {
    checkSignal(signal);
    const text = encodeJson(signal, `Signal "${signal.name}"`);
    this.runOf(runId).signals.push(text);
  }

  async putData(runId: string, name: string, value: unknown, fence?: Lease): Promise<void> {
    requireName('A data name', name);
    const text = encodeJson(value, `Data "${name}"`);
    const memory = this.runOf(runId);
    memory.lease.check(fence, `the data "${name}"`);
    memory.data.set(name, text);
  }

  async putTree(runId: string, tree: unknown, fence?: Lease): Promise<void> {
    const text = encodeJson(tree, `The tree of run "${runId}"`);
    const memory = this.runOf(runId);
    memory.lease.check(fence, 'its tree');
    memory.tree = text;
  }

  async acquireLease(runId: string, owner: string, ttlMs: number, options?: AcquireLeaseOptions): Promise<Lease> {
    requireName('A lease owner', owner);
    requirePositiveInteger('A lease ttlMs', ttlMs);
    return this.runOf(runId).lease.acquire(owner, ttlMs, options?.takeOver === true);
  }

  async leaseOf(runId: string): Promise<LeaseHolder | undefined> {
    return this.runOf(runId).lease.holder();
  }

  /** Refuses further use and lets go of every run (nothing outlives a memory store). */
  async close(): Promise<void> {
    this.closed = true;
    this.runs.clear();
  }

  private requireOpen(): void {
    if (this.closed) throw new RunStoreError('The in-memory run store is closed.');
  }

  private runOf(id: string): MemoryRun {
    this.requireOpen();
    const memory = this.runs.get(requireRunId(id));
    if (memory === undefined) throw new RunNotFoundError(id);
    return memory;
  }
}

function parseAll<T>(texts: Iterable<string>): T[] {
  const out: T[] = [];
  for (const text of texts) out.push(JSON.parse(text) as T);
  return out;
}

/** False, keeping the first record, when `key` was written already. */
function putOnce(records: Map<string, string>, key: string, text: string): boolean {
  if (records.has(key)) return false;
  records.set(key, text);
  return true;
}

/** Appends encoded events (none: the next sequence number, nothing kept). */
function append(memory: MemoryRun, texts: readonly string[]): AppendedEvents {
  const first = memory.events.length + 1;
  for (const text of texts) memory.events.push(text);
  return { first, last: first + texts.length - 1 };
}
