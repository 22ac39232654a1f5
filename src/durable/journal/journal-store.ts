import { randomUUID } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '../../errors/groundswell-error.js';
import { applyRunPatch } from '../store/apply-run-patch.js';
import { encodeJson } from '../store/encode-json.js';
import { acquireFileLease } from './file-lease.js';
import type { EventBatch, JournalEntry } from './journal-entry.js';
import { readJournal, readJournalSized, type RecoveredTail } from './journal-file.js';
import { OpenRun, type KnownJournal } from './journal-open-run.js';
import { runFiles, type RunFiles } from './journal-run-files.js';
import { appendSignal, readSignals } from './signal-folder.js';
import { FSYNC_POLICIES, type FsyncPolicy } from '../store/fsync-policy.js';
import type { JournalRunStoreOptions } from './journal-store-options.js';
import { matchesQuery } from '../store/list-runs-query.js';
import { checkStoredRun } from './check-stored-run.js';
import { readFileNoFollowSync } from './no-follow.js';
import { readLeaseHolder } from './lease-holder.js';
import type { LeaseHolder } from '../store/run-store.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../util/private-modes.js';
import { checkCall, checkSignal, checkStep, newRunRecord } from '../store/record-input.js';
import { checkRunFolder, isRunFolder } from './run-folder.js';
import { requireName, requirePositiveInteger, requireRunId } from '../store/run-id.js';
import type { NewRun, RunPatch, RunRecord } from '../store/run-record.js';
import type { AppendedEvents, Lease, ListRunsQuery, LoadedRun, RunStore, SettledStep } from '../store/run-store.js';
import { RunExistsError, RunNotFoundError, RunStoreCorruptError, RunStoreError } from '../store/run-store-errors.js';
import type { CallRecord, SignalRecord, StepRecord, StoredEvent } from '../store/stored-records.js';
import { syncDirectory, writeFileAtomicallySync } from './sync-write.js';

/**
 * The embedded run store: no server, no native module. Each run is a folder holding its record
 * (`run.json`, rewritten atomically, which is all listing reads) and append-only journals of
 * checksummed records (decision 0032). A torn last record (a write cut short by a crash) is cut
 * off and reported in `recovered`; damage anywhere else is a `RunStoreCorruptError`.
 * All file work is synchronous inside the async methods: records of one process never interleave.
 */
export class JournalRunStore implements RunStore {
  readonly dir: string;
  /** Torn last records found so far (each also passed to `onRecover`). */
  readonly recovered: RecoveredTail[] = [];
  private readonly fsync: FsyncPolicy;
  private readonly clock: { now(): number };
  private readonly onRecover: ((tail: RecoveredTail) => void) | undefined;
  private readonly onDamaged: ((error: RunStoreCorruptError) => void) | undefined;
  private readonly open = new Map<string, OpenRun>();
  // The last loadRun of each run not yet open for writing (one entry per run, replaced by the next load).
  private readonly known = new Map<string, KnownJournal>();
  private closed = false;

  constructor(options: JournalRunStoreOptions = {}) {
    if (options.dir !== undefined && (typeof options.dir !== 'string' || options.dir === '')) {
      throw new UsageError('JournalRunStore `dir` must be a non-empty path.');
    }
    if (options.fsync !== undefined && !FSYNC_POLICIES.includes(options.fsync)) {
      throw new UsageError('JournalRunStore `fsync` must be "checkpoints", "every-record" or "off".');
    }
    this.dir = resolve(options.dir ?? join(process.cwd(), '.groundswell', 'runs'));
    this.fsync = options.fsync ?? 'checkpoints';
    this.clock = options.clock ?? Date;
    this.onRecover = options.onRecover;
    this.onDamaged = options.onDamaged;
  }

  async createRun(run: NewRun): Promise<RunRecord> {
    this.requireOpen();
    const now = this.clock.now();
    const record = newRunRecord(run, now);
    const id = record.id;
    const text = encodeJson(record, `Run "${id}"`);
    const files = runFiles(this.dir, id);
    // Private whatever the umask: runs hold inputs and answers. Creates the store folder too.
    mkdirSync(files.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    checkRunFolder(files.dir);
    // Create-if-absent with the whole content: link() fails when run.json exists, so two
    // creators of one id cannot both succeed and nobody sees a half-written record.
    const temp = join(files.dir, `.run.json.${randomUUID()}.tmp`);
    try {
      writeFileSync(temp, text, { flag: 'wx', mode: PRIVATE_FILE_MODE });
      linkSync(temp, files.meta);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new RunExistsError(id, { cause: error });
      throw error;
    } finally {
      rmSync(temp, { force: true });
    }
    if (this.fsync !== 'off') {
      syncDirectory(files.dir);
      syncDirectory(this.dir);
    }
    return record;
  }

  async updateRun(id: string, patch: RunPatch): Promise<RunRecord> {
    const files = this.filesOf(id);
    const next = applyRunPatch(this.readMeta(files, id), patch ?? {}, this.clock.now());
    const text = encodeJson(next, `Run "${id}"`);
    // Steps before a status change are on disk before the status says so.
    if (this.fsync !== 'off') this.open.get(id)?.sync();
    writeFileAtomicallySync(files.meta, text, this.fsync !== 'off');
    // A run that stops running here (suspended, settled) gives its descriptors back; a later
    // write reopens them, so a long-lived process does not hold two per run it ever wrote.
    if (next.status !== 'running') this.closeRun(id);
    return next;
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    return this.findMeta(this.filesOf(id), id);
  }

  async listRuns(query: ListRunsQuery = {}): Promise<RunRecord[]> {
    this.requireOpen();
    requirePositiveInteger('listRuns limit', query.limit, true);
    if (query.rootName !== undefined && typeof query.rootName !== 'string') throw new UsageError('listRuns rootName must be a string.');
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const runs: RunRecord[] = [];
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const files = runFiles(this.dir, name);
      let run: RunRecord | undefined;
      try {
        // Only run.json is read here, so the folder's other entries are checked when it is used.
        run = isRunFolder(files.dir) ? this.findMeta(files, name) : undefined;
      } catch (error) {
        // One damaged run must not hide the others: it is reported and left out.
        if (!(error instanceof RunStoreCorruptError)) throw error;
        this.onDamaged?.(error);
        continue;
      }
      // A folder without run.json is a run being created (or a stray folder): not a run yet.
      if (run !== undefined && matchesQuery(run, query)) runs.push(run);
    }
    runs.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    return query.limit === undefined ? runs : runs.slice(0, query.limit);
  }

  async loadRun(id: string): Promise<LoadedRun> {
    const files = this.filesOf(id);
    const run = this.readMeta(files, id);
    const steps = new Map<string, StepRecord>();
    const calls = new Map<string, CallRecord>();
    const data: Record<string, unknown> = {};
    const journal = readJournalSized(files.journal, this.torn);
    for (const entry of journal.records as JournalEntry[]) {
      if (entry.kind === 'step') {
        if (!steps.has(entry.record.key)) steps.set(entry.record.key, entry.record);
      } else if (entry.kind === 'call') {
        if (!calls.has(entry.record.key)) calls.set(entry.record.key, entry.record);
      } else if (entry.kind === 'data') {
        // Defined, not assigned: a data name `__proto__` is a name like any other.
        Object.defineProperty(data, entry.name, { value: entry.value, writable: true, enumerable: true, configurable: true });
      }
      else throw new RunStoreCorruptError(files.journal, `a record of unknown kind ${JSON.stringify((entry as { kind?: unknown }).kind)}.`);
    }
    const signals = [...(readJournal(files.signals, this.torn) as SignalRecord[]), ...(readSignals(files.signalDir) as SignalRecord[])];
    // The resume that loads a run writes it next: what was just read spares reading it again.
    if (!this.open.has(id)) {
      this.known.delete(id);
      this.known.set(id, { length: journal.end, stepKeys: steps.keys(), callKeys: calls.keys() });
      // A reader that loads many runs (the CLI, the viewer) keeps only the latest few.
      if (this.known.size > 4) this.known.delete(this.known.keys().next().value as string);
    }
    const loaded: LoadedRun = { run, steps: [...steps.values()], calls: [...calls.values()], signals, data };
    if (existsSync(files.tree)) loaded.tree = this.readJsonFile(files.tree);
    return loaded;
  }

  async putStep(runId: string, step: StepRecord): Promise<boolean> {
    checkStep(step);
    const run = this.openRun(runId);
    return run.putOnce('step', step.key, entryText('step', encodeJson(step, `Step "${step.key}"`)), this.fsync === 'every-record');
  }

  async putCall(runId: string, call: CallRecord): Promise<boolean> {
    checkCall(call);
    const run = this.openRun(runId);
    return run.putOnce('call', call.key, entryText('call', encodeJson(call, `Call "${call.key}"`)), this.fsync === 'every-record');
  }

  async appendEvents(runId: string, events: readonly unknown[]): Promise<AppendedEvents> {
    const texts = encodeEvents(runId, events);
    return this.writeEvents(this.openRun(runId), texts);
  }

  /**
   * The events, then the step: two write(2)s, one per file (events and steps live apart). Both
   * are encoded before either is written, so a refused value writes nothing; a kill between the
   * two leaves events of a step that ran and no step, which the resume runs again, as before.
   */
  async settleStep(runId: string, step: StepRecord, events: readonly unknown[]): Promise<SettledStep> {
    checkStep(step);
    const texts = encodeEvents(runId, events);
    const entry = entryText('step', encodeJson(step, `Step "${step.key}"`));
    const run = this.openRun(runId);
    const appended = this.writeEvents(run, texts);
    return { written: run.putOnce('step', step.key, entry, this.fsync === 'every-record'), events: appended };
  }

  /** Appends one batch of encoded events (none: the next sequence number, nothing written). */
  private writeEvents(run: OpenRun, texts: string[]): AppendedEvents {
    if (texts.length === 0) {
      const next = run.nextSequence();
      return { first: next, last: next - 1 };
    }
    const joined = texts.join(',');
    // The batch as EventBatch JSON, from events checked one by one (errors name the event).
    const first = run.appendEvents(texts.length, (seq) => `{"first":${seq},"events":[${joined}]}`, this.fsync === 'every-record');
    return { first, last: first + texts.length - 1 };
  }

  async readEvents(runId: string, options: { after?: number; limit?: number } = {}): Promise<StoredEvent[]> {
    const files = this.filesOf(runId);
    this.readMeta(files, runId);
    const after = options.after ?? 0;
    if (typeof after !== 'number' || Number.isNaN(after)) throw new UsageError(`readEvents after must be a number, got ${String(after)}.`);
    requirePositiveInteger('readEvents limit', options.limit, true);
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    const out: StoredEvent[] = [];
    for (const batch of readJournal(files.events, this.torn) as EventBatch[]) {
      for (let i = 0; i < batch.events.length && out.length < limit; i += 1) {
        const seq = batch.first + i;
        if (seq > after) out.push({ seq, event: batch.events[i] });
      }
      if (out.length >= limit) break;
    }
    return out;
  }

  async putSignal(runId: string, signal: SignalRecord): Promise<void> {
    checkSignal(signal);
    const files = this.filesOf(runId);
    this.readMeta(files, runId);
    // Usually sent by another process than the run's, and by several at once: one file each.
    appendSignal(files.signalDir, encodeJson(signal, `Signal "${signal.name}"`), this.fsync !== 'off', `Run "${runId}"`);
  }

  async putData(runId: string, name: string, value: unknown): Promise<void> {
    requireName('A data name', name);
    const run = this.openRun(runId);
    const entry: JournalEntry = { kind: 'data', name, value, at: this.clock.now() };
    run.appendJournal(encodeJson(entry, `Data "${name}"`), this.fsync === 'every-record');
  }

  async putTree(runId: string, tree: unknown): Promise<void> {
    const files = this.filesOf(runId);
    this.readMeta(files, runId);
    writeFileAtomicallySync(files.tree, encodeJson(tree, `The tree of run "${runId}"`), this.fsync === 'every-record');
  }

  async acquireLease(runId: string, owner: string, ttlMs: number): Promise<Lease> {
    requireName('A lease owner', owner);
    requirePositiveInteger('A lease ttlMs', ttlMs);
    const files = this.filesOf(runId);
    this.readMeta(files, runId);
    return acquireFileLease(runId, files.lease, owner, ttlMs, () => this.clock.now());
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const run of this.open.values()) run.close();
    this.open.clear();
    this.known.clear();
  }

  private closeRun(id: string): void {
    this.open.get(id)?.close();
    this.open.delete(id);
  }

  private readonly torn = (tail: RecoveredTail): void => {
    this.recovered.push(tail);
    this.onRecover?.(tail);
  };

  private requireOpen(): void {
    if (this.closed) throw new RunStoreError(`The run store at ${this.dir} is closed.`);
  }

  /** The run's files, after refusing a symbolic link as its folder or any entry of it. */
  private filesOf(id: string): RunFiles {
    this.requireOpen();
    const files = runFiles(this.dir, requireRunId(id));
    checkRunFolder(files.dir);
    return files;
  }

  private openRun(id: string): OpenRun {
    const known = this.open.get(id);
    if (known !== undefined) {
      this.requireOpen();
      return known;
    }
    const files = this.filesOf(id);
    // The record is checked before anything is written next to it.
    this.readMeta(files, id);
    const run = new OpenRun(files, this.torn, `Run "${id}"`, this.known.get(id));
    this.known.delete(id);
    this.open.set(id, run);
    return run;
  }

  private readMeta(files: RunFiles, id: string): RunRecord {
    const run = this.findMeta(files, id);
    if (run === undefined) throw new RunNotFoundError(id);
    return run;
  }

  /** The run record, checked to be one and to be this folder's; undefined when there is none. */
  private findMeta(files: RunFiles, id: string): RunRecord | undefined {
    let value: unknown;
    try {
      value = this.readJsonFile(files.meta);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw error;
    }
    return checkStoredRun(value, files.meta, id);
  }

  private readJsonFile(path: string): unknown {
    const text = readFileNoFollowSync(path).toString('utf8');
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new RunStoreCorruptError(path, 'holds no valid JSON (it is written atomically, so it was damaged afterwards).', { cause: error });
    }
  }

  /** Who holds the run's lease, read only; a holder on this host whose process is gone is `exited`. */
  async leaseOf(runId: string): Promise<LeaseHolder | undefined> {
    const files = this.filesOf(runId);
    this.readMeta(files, runId);
    return readLeaseHolder(files.dir, this.clock.now());
  }
}

function encodeEvents(runId: string, events: readonly unknown[]): string[] {
  if (!Array.isArray(events)) throw new UsageError('appendEvents takes an array of events.');
  return events.map((event, i) => encodeJson(event, `Event ${i} of run "${runId}"`));
}

/** A step or call entry (JournalEntry JSON) around a record already encoded. */
function entryText(kind: 'step' | 'call', record: string): string {
  return `{"kind":"${kind}","record":${record}}`;
}
