import type { JournalEntry } from './journal-entry.js';
import { JournalFile, parseBody } from './journal-file.js';
import type { RunFiles } from './journal-run-files.js';
import { generationOpenCheck, listGenerations, segmentPath, type SegmentKind } from './holder-layout.js';
import { sealEarlierGenerations, type SealOptions } from './earlier-generations.js';
import { nextSeqAfter, readSealedSegment } from './segment-read.js';
import type { Seal } from './segment-seal.js';
import { RunStoreError } from '../store/run-store-errors.js';

/** What a read of the whole journal found (see `JournalRunStore.loadRun`), so opening it to write need not read it again. */
export interface KnownJournal {
  /** The generation read last (the newest when read). */
  generation: number;
  /** Where that generation's valid records ended. */
  length: number;
  stepKeys: Iterable<string>;
  callKeys: Iterable<string>;
}

/** One record appended: to which file, and where it ends there. */
export interface Written {
  kind: SegmentKind;
  end: number;
}

/**
 * A run this process writes, through one generation of its lease (holder-layout.ts): that
 * generation's journal and events files stay open, and the keys already written (by it and the
 * generations before it) are known, so a put costs one write(2). Opened on the first write; a torn
 * tail left by a crash is cut off then.
 *
 * After its writes the caller asks `confirm()`, which costs one access(2) while the generation is
 * open: a write made before the generation's folder was fenced lies inside the seal its taker
 * takes later, so it is kept. Once the folder is gone, the seal decides for each write, and
 * nothing more is written through this object.
 */
export class OpenRun {
  private journalFile: JournalFile | undefined;
  private eventsFile: JournalFile | undefined;
  private readonly stepKeys = new Set<string>();
  private readonly callKeys = new Set<string>();
  private nextSeq = 1;
  private closedAt: Seal | undefined;
  private readonly isOpen: () => boolean;

  constructor(
    readonly files: RunFiles,
    readonly generation: number,
    /** The seals of the generations below this one (index = generation). */
    private readonly seals: readonly Seal[],
    private readonly options: SealOptions,
    /** Names the run in errors. */
    private readonly owner: string,
    private known?: KnownJournal,
  ) {
    this.isOpen = generationOpenCheck(files, generation);
  }

  /** Whether this generation was found fenced: it takes no more writes. */
  get isClosed(): boolean {
    return this.closedAt !== undefined;
  }

  /** Appends a step or call unless its key was written; undefined when it was. */
  putOnce(kind: 'step' | 'call', key: string, payload: string, sync: boolean): Written | undefined {
    const journal = this.journal();
    const keys = kind === 'step' ? this.stepKeys : this.callKeys;
    if (keys.has(key)) return undefined;
    const end = journal.append(payload, sync);
    keys.add(key);
    return { kind: 'journal', end };
  }

  appendJournal(payload: string, sync: boolean): Written {
    return { kind: 'journal', end: this.journal().append(payload, sync) };
  }

  /** The sequence number the next event gets. */
  nextSequence(): number {
    this.events();
    return this.nextSeq;
  }

  /** Appends one batch; returns the first sequence number it got. */
  appendEvents(count: number, payload: (first: number) => string, sync: boolean): { first: number; written: Written } {
    const file = this.events();
    const first = this.nextSeq;
    const end = file.append(payload(first), sync);
    this.nextSeq += count;
    return { first, written: { kind: 'events', end } };
  }

  /**
   * Whether each of `writes` (just made through this object) is kept: undefined while the
   * generation is open (all are); once it is fenced, whether each lies inside its seal.
   */
  confirm(writes: readonly Written[]): boolean[] | undefined {
    if (this.stillOpen()) return undefined;
    const seal = this.closedAt as Seal;
    return writes.map((write) => write.end <= seal[write.kind]);
  }

  /** Whether the generation is still open (one access(2)); once it is not, its seal is at hand for `confirm`. */
  stillOpen(): boolean {
    if (this.closedAt === undefined) {
      if (this.isOpen()) return true;
      this.closedAt = this.ownSeal();
    }
    return false;
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

  /** This generation's seal, taken here if its taker has not taken it yet. */
  private ownSeal(): Seal {
    const seal = sealEarlierGenerations(this.files, listGenerations(this.files), this.options)[this.generation];
    if (seal === undefined) {
      throw new RunStoreError(`${this.owner}: the folder of its lease's generation ${this.generation} is gone but no later generation was claimed; nothing more is written.`);
    }
    return seal;
  }

  private journal(): JournalFile {
    if (this.journalFile !== undefined) return this.journalFile;
    const known = this.known;
    this.known = undefined;
    const path = segmentPath(this.files, this.generation, 'journal');
    const { file, bodies } = JournalFile.open(path, this.options.onTorn, this.owner, known?.generation === this.generation ? known.length : undefined);
    if (bodies === undefined && known !== undefined) {
      for (const key of known.stepKeys) this.stepKeys.add(key);
      for (const key of known.callKeys) this.callKeys.add(key);
    } else {
      try {
        this.seals.forEach((seal, generation) => {
          const earlier = segmentPath(this.files, generation, 'journal');
          this.addKeys(readSealedSegment(earlier, seal.journal).bodies, earlier);
        });
      } catch (error) {
        file.close();
        throw error;
      }
      this.addKeys(bodies ?? [], path);
    }
    this.journalFile = file;
    return file;
  }

  private addKeys(bodies: readonly Buffer[], path: string): void {
    bodies.forEach((body, i) => {
      const record = parseBody(body, path, i) as JournalEntry;
      if (record.kind === 'step') this.stepKeys.add(record.record.key);
      else if (record.kind === 'call') this.callKeys.add(record.record.key);
    });
  }

  private events(): JournalFile {
    if (this.eventsFile !== undefined) return this.eventsFile;
    const path = segmentPath(this.files, this.generation, 'events');
    const { file, bodies = [] } = JournalFile.open(path, this.options.onTorn, this.owner);
    // Only the last batch says where numbering goes on: the others are not decoded.
    try {
      this.nextSeq = nextSeqAfter({ bodies, end: 0 }, path) ?? this.seals.at(-1)?.nextSeq ?? 1;
    } catch (error) {
      file.close();
      throw error;
    }
    this.eventsFile = file;
    return file;
  }
}
