import { randomUUID } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '../../errors/groundswell-error.js';
import { applyRunPatch } from '../store/apply-run-patch.js';
import { encodeJson } from '../store/encode-json.js';
import { encodeEvents } from '../store/encode-events.js';
import { acquireFileLease, currentHolder, FileLease, generationOfToken } from './file-lease.js';
import type { EventBatch, JournalEntry } from './journal-entry.js';
import { parseBody, readJournal, type RecoveredTail } from './journal-file.js';
import { OpenRun, type KnownJournal, type Written } from './journal-open-run.js';
import { holderFolder, listGenerations } from './holder-layout.js';
import { rewriteThroughFolder } from './holder-rewrite.js';
import { sealEarlierGenerations, type SealOptions } from './earlier-generations.js';
import { readRunSegments } from './run-segments.js';
import { fencedError } from '../store/fenced-error.js';
import { runFiles, type RunFiles } from './journal-run-files.js';
import { appendSignal, readSignals } from './signal-folder.js';
import { FSYNC_POLICIES, type FsyncPolicy } from '../store/fsync-policy.js';
import type { JournalRunStoreOptions } from './journal-store-options.js';
import { matchesQuery } from '../store/list-runs-query.js';
import { checkStoredRun } from './check-stored-run.js';
import { readFileNoFollowSync } from './no-follow.js';
import { readLeaseHolder } from './lease-holder.js';
import type { LeaseHolder } from '../store/run-store.js';
import { PRIVATE_DIR_MODE } from '../../util/private-modes.js';
import { checkCall, checkSignal, checkStep, newRunRecord } from '../store/record-input.js';
import { checkRunFolder, isRunFolder } from './run-folder.js';
import { requireName, requirePositiveInteger, requireRunId } from '../store/run-id.js';
import type { NewRun, RunPatch, RunRecord } from '../store/run-record.js';
import type { AcquireLeaseOptions, AppendedEvents, Lease, ListRunsQuery, LoadedRun, RunStore, SettledStep } from '../store/run-store.js';
import { RunExistsError, RunFencedError, RunNotFoundError, RunStoreCorruptError, RunStoreError } from '../store/run-store-errors.js';
import type { CallRecord, SignalRecord, StepRecord, StoredEvent } from '../store/stored-records.js';
import { syncDirectory, writeFileAtomicallySync, writeNewFileSync } from './sync-write.js';

/** One part of a write (see `JournalRunStore.write`): what it appended, or undefined when nothing. */
type WritePart = (run: OpenRun) => Written | undefined;

// An unfenced write lands in the newest generation; each retry means a takeover landed meanwhile.
const WRITE_ATTEMPTS = 8;

/**
 * The embedded run store: no server, no native module. Each run is a folder holding its record
 * (`run.json`, rewritten atomically, which is all listing reads) and append-only journals of
 * checksummed records (decision 0032), one pair per generation of the run's lease, so that a
 * holder that was taken over writes nothing anyone reads (decision 0066). A torn last record (a
 * write cut short by a crash) is cut off and reported in `recovered`; damage anywhere else is a
 * `RunStoreCorruptError`. All file work is synchronous inside the async methods: records of one
 * process never interleave.
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
      writeNewFileSync(temp, text, this.fsync !== 'off');
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

  async updateRun(id: string, patch: RunPatch, fence?: Lease): Promise<RunRecord> {
    const files = this.filesOf(id);
    const next = applyRunPatch(this.readMeta(files, id), patch ?? {}, this.clock.now());
    const text = encodeJson(next, `Run "${id}"`);
    // Steps before a status change are on disk before the status says so.
    if (this.fsync !== 'off') this.open.get(id)?.sync();
    if (fence === undefined) writeFileAtomicallySync(files.meta, text, this.fsync !== 'off');
    else this.rewriteFenced(files, id, fence, 'a change of its record', files.meta, text, this.fsync !== 'off');
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
    // Every generation's journal in order, each earlier one up to its seal: the first record of a key wins.
    const journal = readRunSegments(files, 'journal', this.sealOptions);
    for (const part of journal.parts) {
      part.bodies.forEach((body, i) => {
        const entry = parseBody(body, part.path, i) as JournalEntry;
        if (entry.kind === 'step') {
          if (!steps.has(entry.record.key)) steps.set(entry.record.key, entry.record);
        } else if (entry.kind === 'call') {
          if (!calls.has(entry.record.key)) calls.set(entry.record.key, entry.record);
        } else if (entry.kind === 'data') {
          // Defined, not assigned: a data name `__proto__` is a name like any other.
          Object.defineProperty(data, entry.name, { value: entry.value, writable: true, enumerable: true, configurable: true });
        }
        else throw new RunStoreCorruptError(part.path, `a record of unknown kind ${JSON.stringify((entry as { kind?: unknown }).kind)}.`);
      });
    }
    const signals = [...(readJournal(files.signals, this.torn) as SignalRecord[]), ...(readSignals(files.signalDir) as SignalRecord[])];
    // The resume that loads a run writes it next: what was just read spares reading it again.
    if (!this.open.has(id)) {
      this.known.delete(id);
      this.known.set(id, { generation: journal.newest, length: journal.newestEnd, stepKeys: steps.keys(), callKeys: calls.keys() });
      // A reader that loads many runs (the CLI, the viewer) keeps only the latest few.
      if (this.known.size > 4) this.known.delete(this.known.keys().next().value as string);
    }
    const loaded: LoadedRun = { run, steps: [...steps.values()], calls: [...calls.values()], signals, data };
    if (existsSync(files.tree)) loaded.tree = this.readJsonFile(files.tree);
    return loaded;
  }

  async putStep(runId: string, step: StepRecord, fence?: Lease): Promise<boolean> {
    checkStep(step);
    const entry = entryText('step', encodeJson(step, `Step "${step.key}"`));
    let written = false;
    this.write(runId, fence, `the step "${step.key}"`, [
      (run) => {
        const done = run.putOnce('step', step.key, entry, this.fsync === 'every-record');
        written = done !== undefined;
        return done;
      },
    ]);
    return written;
  }

  async putCall(runId: string, call: CallRecord, fence?: Lease): Promise<boolean> {
    checkCall(call);
    const entry = entryText('call', encodeJson(call, `Call "${call.key}"`));
    let written = false;
    this.write(runId, fence, `the call "${call.key}"`, [
      (run) => {
        const done = run.putOnce('call', call.key, entry, this.fsync === 'every-record');
        written = done !== undefined;
        return done;
      },
    ]);
    return written;
  }

  async appendEvents(runId: string, events: readonly unknown[], fence?: Lease): Promise<AppendedEvents> {
    const texts = encodeEvents(runId, events);
    let appended: AppendedEvents = { first: 1, last: 0 };
    this.write(runId, fence, `an append of ${texts.length} event${texts.length === 1 ? '' : 's'}`, [
      (run) => {
        const done = this.writeEvents(run, texts);
        appended = done.appended;
        return done.written;
      },
    ]);
    return appended;
  }

  /**
   * The events, then the step: two write(2)s, one per file (events and steps live apart). Both
   * are encoded before either is written, so a refused value writes nothing; a kill between the
   * two leaves events of a step that ran and no step, which the resume runs again, as before.
   */
  async settleStep(runId: string, step: StepRecord, events: readonly unknown[], fence?: Lease): Promise<SettledStep> {
    checkStep(step);
    const texts = encodeEvents(runId, events);
    const entry = entryText('step', encodeJson(step, `Step "${step.key}"`));
    let appended: AppendedEvents = { first: 1, last: 0 };
    let written = false;
    // One check of the lease for both writes: a settled step costs two write(2)s and one access(2).
    this.write(runId, fence, `the step "${step.key}" (settled with ${texts.length} event${texts.length === 1 ? '' : 's'})`, [
      (run) => {
        const done = this.writeEvents(run, texts);
        appended = done.appended;
        return done.written;
      },
      (run) => {
        const done = run.putOnce('step', step.key, entry, this.fsync === 'every-record');
        written = done !== undefined;
        return done;
      },
    ]);
    return { written, events: appended };
  }

  /** Appends one batch of encoded events (none: the next sequence number, nothing written). */
  private writeEvents(run: OpenRun, texts: string[]): { appended: AppendedEvents; written: Written | undefined } {
    if (texts.length === 0) {
      const next = run.nextSequence();
      return { appended: { first: next, last: next - 1 }, written: undefined };
    }
    const joined = texts.join(',');
    // The batch as EventBatch JSON, from events checked one by one (errors name the event).
    const { first, written } = run.appendEvents(texts.length, (seq) => `{"first":${seq},"events":[${joined}]}`, this.fsync === 'every-record');
    return { appended: { first, last: first + texts.length - 1 }, written };
  }

  async readEvents(runId: string, options: { after?: number; limit?: number } = {}): Promise<StoredEvent[]> {
    const files = this.filesOf(runId);
    this.readMeta(files, runId);
    const after = options.after ?? 0;
    if (typeof after !== 'number' || Number.isNaN(after)) throw new UsageError(`readEvents after must be a number, got ${String(after)}.`);
    requirePositiveInteger('readEvents limit', options.limit, true);
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    const out: StoredEvent[] = [];
    const parts = readRunSegments(files, 'events', this.sealOptions).parts;
    for (let p = 0; p < parts.length; p += 1) {
      const part = parts[p] as (typeof parts)[number];
      for (let n = 0; n < part.bodies.length && out.length < limit; n += 1) {
        // A reader that goes on after `after` (a page reconnecting, a poll) skips whole batches
        // before it unparsed: the next batch's first number says where this one ends.
        const next = n + 1 < part.bodies.length ? part.bodies[n + 1] : parts[p + 1]?.bodies[0];
        const nextFirst = next === undefined ? undefined : batchFirst(next);
        if (nextFirst !== undefined && nextFirst - 1 <= after) continue;
        const batch = parseBody(part.bodies[n] as Buffer, part.path, n) as EventBatch;
        for (let i = 0; i < batch.events.length && out.length < limit; i += 1) {
          const seq = batch.first + i;
          if (seq > after) out.push({ seq, event: batch.events[i] });
        }
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

  async putData(runId: string, name: string, value: unknown, fence?: Lease): Promise<void> {
    requireName('A data name', name);
    const entry: JournalEntry = { kind: 'data', name, value, at: this.clock.now() };
    const text = encodeJson(entry, `Data "${name}"`);
    this.write(runId, fence, `the data "${name}"`, [(run) => run.appendJournal(text, this.fsync === 'every-record')]);
  }

  async putTree(runId: string, tree: unknown, fence?: Lease): Promise<void> {
    const files = this.filesOf(runId);
    this.readMeta(files, runId);
    const text = encodeJson(tree, `The tree of run "${runId}"`);
    if (fence === undefined) writeFileAtomicallySync(files.tree, text, this.fsync === 'every-record');
    else this.rewriteFenced(files, runId, fence, 'its tree', files.tree, text, this.fsync === 'every-record');
  }

  async acquireLease(runId: string, owner: string, ttlMs: number, options?: AcquireLeaseOptions): Promise<Lease> {
    requireName('A lease owner', owner);
    requirePositiveInteger('A lease ttlMs', ttlMs);
    const files = this.filesOf(runId);
    this.readMeta(files, runId);
    const context = { runId, storeDir: this.dir, files, now: () => this.clock.now(), fsync: this.fsync !== 'off', seal: this.sealOptions };
    return acquireFileLease(context, owner, ttlMs, options?.takeOver === true);
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

  private get sealOptions(): SealOptions {
    return { fsync: this.fsync !== 'off', onTorn: this.torn };
  }

  /**
   * Makes one write of `parts` (run in order through one generation's files), then checks once
   * that the generation was still open (`OpenRun.confirm`). A fenced write whose generation was
   * fenced before all of it landed is refused: what it appended lies past the seal, never read.
   * An unfenced write goes to the newest generation: the parts that did not land are written
   * again there.
   */
  private write(runId: string, fence: Lease | undefined, what: string, parts: readonly WritePart[]): void {
    let pending = parts;
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt += 1) {
      const run = this.writerFor(runId, fence, what);
      const written: Array<Written | undefined> = [];
      try {
        for (const part of pending) written.push(part(run));
      } catch (error) {
        // A write that failed (JournalFile throws the base class) under a lease taken over
        // meanwhile: say so; what it left is past the seal, and it cut only this generation's file.
        if (fence !== undefined && Object.getPrototypeOf(error) === RunStoreError.prototype && !stillOpen(run)) {
          this.closeRun(runId);
          const refused = this.refusal(runId, fence, what);
          throw new RunFencedError(runId, refused.holder, refused.expiresAt, refused.message, { cause: error });
        }
        throw error;
      }
      if (run.stillOpen()) return;
      const kept = run.confirm(written.filter((part): part is Written => part !== undefined)) as boolean[];
      // The generation was fenced: this binding writes no more.
      this.closeRun(runId);
      const landed: boolean[] = [];
      for (let i = 0, k = 0; i < written.length; i += 1) landed.push(written[i] !== undefined && kept[k++] === true);
      if (fence !== undefined) {
        if (written.length > 0 && landed.every(Boolean)) return;
        throw this.refusal(runId, fence, what);
      }
      pending = pending.filter((_part, i) => landed[i] !== true);
      if (pending.length === 0) return;
    }
    throw new RunStoreError(`Run "${runId}": ${what} was not written: the lease changed hands ${WRITE_ATTEMPTS} times while it was written.`);
  }

  /**
   * The run's open writer for `fence`'s generation (without a fence: the newest). Opening one
   * costs a listing of holders/ and, after a takeover nobody finished, its fences and seals.
   */
  private writerFor(runId: string, fence: Lease | undefined, what: string): OpenRun {
    const existing = this.open.get(runId);
    const generation = fence === undefined ? undefined : this.generationOf(runId, fence, what);
    if (existing !== undefined && (generation === undefined ? !existing.isClosed : existing.generation === generation)) {
      this.requireOpen();
      if (existing.isClosed) throw this.refusal(runId, fence as Lease, what);
      return existing;
    }
    const files = this.filesOf(runId);
    // The record is checked before anything is written next to it.
    this.readMeta(files, runId);
    const generations = listGenerations(files);
    if (generation !== undefined && generation !== generations.newest) throw this.refusal(runId, fence as Lease, what);
    this.closeRun(runId);
    const seals = sealEarlierGenerations(files, generations, this.sealOptions);
    const run = new OpenRun(files, generations.newest, seals, this.sealOptions, `Run "${runId}"`, this.known.get(runId));
    this.known.delete(runId);
    this.open.set(runId, run);
    return run;
  }

  /** The generation `fence` holds; refused when it was released here or is not the run's lease. */
  private generationOf(runId: string, fence: Lease, what: string): number {
    if (fence instanceof FileLease && fence.isOf(this.dir, runId)) {
      if (fence.released) throw fence.fenced(`${what} (under a lease it released)`);
      return fence.generation;
    }
    // A lease this store did not hand out (another instance over a linked folder, a copy): by its token.
    const generation = generationOfToken(this.filesOf(runId), fence.token);
    if (generation === undefined) throw this.refusal(runId, fence, what);
    return generation;
  }

  /**
   * Rewrites run.json or tree.json under `fence`: staged in its generation's folder, so the
   * rename is refused once that folder is fenced. A generation already superseded whose taker
   * did not fence it yet (killed right after its claim) is fenced here first.
   */
  private rewriteFenced(files: RunFiles, runId: string, fence: Lease, what: string, path: string, text: string, fsync: boolean): void {
    const generation = this.generationOf(runId, fence, what);
    const generations = listGenerations(files);
    const open = this.open.get(runId);
    if (generation !== generations.newest || (open?.generation === generation && open.isClosed)) {
      sealEarlierGenerations(files, generations, this.sealOptions);
      throw this.refusal(runId, fence, what);
    }
    if (!rewriteThroughFolder(holderFolder(files, generation), path, text, fsync)) throw this.refusal(runId, fence, what);
  }

  private refusal(runId: string, fence: Lease, what: string): RunFencedError {
    if (fence instanceof FileLease) return fence.fenced(what);
    return fencedError(runId, fence, what, currentHolder(runFiles(this.dir, requireRunId(runId))));
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

/** Whether `run`'s generation is still open; true when even that cannot be told (the caller's own error is then the one to report). */
function stillOpen(run: OpenRun): boolean {
  try {
    return run.stillOpen();
  } catch {
    return true;
  }
}

/** A step or call entry (JournalEntry JSON) around a record already encoded. */
function entryText(kind: 'step' | 'call', record: string): string {
  return `{"kind":"${kind}","record":${record}}`;
}

const BATCH_HEAD = /^\{"first":(\d{1,15}),/;

/** The first sequence number of an event batch, read from the head of its JSON; undefined when it is not there. */
function batchFirst(body: Buffer): number | undefined {
  const match = BATCH_HEAD.exec(body.toString('latin1', 0, 32));
  return match === null ? undefined : Number(match[1]);
}
