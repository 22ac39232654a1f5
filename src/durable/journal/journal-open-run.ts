import type { EventBatch, JournalEntry } from './journal-entry.js';
import { JournalFile, parseBody, type RecoveredTail } from './journal-file.js';
import type { RunFiles } from './journal-run-files.js';
import { RunStoreCorruptError } from '../store/run-store-errors.js';

/**
 * A run this process writes: its journal and events files stay open, and the keys already
 * written are known, so a put costs one write(2). Opened on the first write; a torn tail left by
 * a crash is cut off then. Keys written by another process after that are not seen: one process
 * writes a run at a time (the lease).
 */
/** What a read of the whole journal found (see `JournalRunStore.loadRun`), so opening it to write need not read it again. */
export interface KnownJournal {
  /** Where its valid records ended. */
  length: number;
  stepKeys: Iterable<string>;
  callKeys: Iterable<string>;
}

export class OpenRun {
  private journalFile: JournalFile | undefined;
  private eventsFile: JournalFile | undefined;
  private readonly stepKeys = new Set<string>();
  private readonly callKeys = new Set<string>();
  private nextSeq = 1;

  constructor(
    readonly files: RunFiles,
    private readonly onTorn: (tail: RecoveredTail) => void,
    /** Names the run in errors. */
    private readonly owner: string,
    private known?: KnownJournal,
  ) {}

  /** Appends a step or call unless its key was written; false when it was. */
  putOnce(kind: 'step' | 'call', key: string, payload: string, sync: boolean): boolean {
    const journal = this.journal();
    const keys = kind === 'step' ? this.stepKeys : this.callKeys;
    if (keys.has(key)) return false;
    journal.append(payload, sync);
    keys.add(key);
    return true;
  }

  appendJournal(payload: string, sync: boolean): void {
    this.journal().append(payload, sync);
  }

  /** The sequence number the next event gets. */
  nextSequence(): number {
    this.events();
    return this.nextSeq;
  }

  /** Appends one batch; returns the first sequence number it got. */
  appendEvents(count: number, payload: (first: number) => string, sync: boolean): number {
    const file = this.events();
    const first = this.nextSeq;
    file.append(payload(first), sync);
    this.nextSeq += count;
    return first;
  }

  sync(): void {
    this.journalFile?.sync();
    this.eventsFile?.sync();
  }

  close(): void {
    this.journalFile?.close();
    this.eventsFile?.close();
    this.journalFile = undefined;
    this.eventsFile = undefined;
  }

  private journal(): JournalFile {
    if (this.journalFile !== undefined) return this.journalFile;
    const known = this.known;
    this.known = undefined;
    const { file, bodies } = JournalFile.open(this.files.journal, this.onTorn, this.owner, known?.length);
    if (bodies === undefined && known !== undefined) {
      for (const key of known.stepKeys) this.stepKeys.add(key);
      for (const key of known.callKeys) this.callKeys.add(key);
    } else {
      (bodies ?? []).forEach((body, i) => {
        const record = parseBody(body, this.files.journal, i) as JournalEntry;
        if (record.kind === 'step') this.stepKeys.add(record.record.key);
        else if (record.kind === 'call') this.callKeys.add(record.record.key);
      });
    }
    this.journalFile = file;
    return file;
  }

  private events(): JournalFile {
    if (this.eventsFile !== undefined) return this.eventsFile;
    const { file, bodies = [] } = JournalFile.open(this.files.events, this.onTorn, this.owner);
    // Only the last batch says where numbering goes on: the others are not decoded.
    const lastBody = bodies.at(-1);
    if (lastBody !== undefined) {
      const last = parseBody(lastBody, this.files.events, bodies.length - 1) as EventBatch;
      if (typeof last?.first !== 'number' || !Array.isArray(last.events)) {
        file.close();
        throw new RunStoreCorruptError(this.files.events, 'the last event batch has no sequence number.');
      }
      this.nextSeq = last.first + last.events.length;
    }
    this.eventsFile = file;
    return file;
  }
}
