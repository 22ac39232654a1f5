import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readFileSync } from 'node:fs';
import { errorMessage } from '../../util/describe.js';
import { writeAllSync } from './sync-write.js';
import { encodeFrame, MAX_RECORD_BYTES, scanFrames, type TornTail } from './journal-frame.js';
import { APPEND_NO_FOLLOW, readFileNoFollowSync } from './no-follow.js';
import { PRIVATE_FILE_MODE } from '../../util/private-modes.js';
import { RunStoreCorruptError, RunStoreError, RunValueError } from '../store/run-store-errors.js';

/** A torn last record found when a journal was opened or read. */
export interface RecoveredTail extends TornTail {
  file: string;
  /** True when the file was cut back to `offset` (opened to append); false when only skipped (read). */
  truncated: boolean;
}

/** The records of a journal file; a missing file has none. A torn last record is skipped and reported. */
export function readJournal(path: string, onTorn: (tail: RecoveredTail) => void): unknown[] {
  let buf: Buffer;
  try {
    buf = readFileNoFollowSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const scanned = scanFrames(buf, path);
  if (scanned.torn !== undefined) onTorn({ ...scanned.torn, file: path, truncated: false });
  return scanned.bodies.map((body, i) => parseBody(body, path, i));
}

/** One record's JSON (decoded here, so a caller that needs only some records pays only for those). */
export function parseBody(body: Buffer, path: string, index: number): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new RunStoreCorruptError(path, `record ${index + 1} holds no JSON although its checksum matches.`, { cause: error });
  }
}

/**
 * One append-only journal file, open for the store's lifetime (reopening per record would cost
 * more than the write). Writes are synchronous `write(2)` calls on an O_APPEND descriptor: the
 * record is in the OS once `append` returns, so a killed process loses nothing it acknowledged;
 * `sync()` makes it survive a power loss too. Each file belongs to one generation of the run's
 * lease and only its holder appends to it (holder-layout.ts), so the file's length is known here:
 * a write that fails part-way (a full disk) is cut back to it, which cuts only this process's own
 * bytes, and records acknowledged later never sit behind a broken one.
 */
export class JournalFile {
  private fd: number | undefined;
  /** Set when a failed write could not be undone: nothing more is appended. */
  private fenced: unknown;

  private constructor(
    readonly path: string,
    private readonly owner: string,
    fd: number,
    private size: number,
  ) {
    this.fd = fd;
  }

  /**
   * Opens `path` for appending, creating it. Returns the existing records' payloads (see
   * `parseBody`); a torn last record is cut off (and reported) first, so new records never follow
   * garbage. `owner` names the run in errors. With `knownLength` (what a read of the whole file
   * just found valid), a file still of that length is not read again: `bodies` is then undefined.
   */
  static open(
    path: string,
    onTorn: (tail: RecoveredTail) => void,
    owner = 'a run',
    knownLength?: number,
  ): { file: JournalFile; bodies: Buffer[] | undefined } {
    const fd = openSync(path, APPEND_NO_FOLLOW, PRIVATE_FILE_MODE);
    try {
      if (knownLength !== undefined && fstatSync(fd).size === knownLength) return { file: new JournalFile(path, owner, fd, knownLength), bodies: undefined };
      const buf = readFileSync(fd);
      const scanned = scanFrames(buf, path);
      let size = buf.length;
      if (scanned.torn !== undefined) {
        ftruncateSync(fd, scanned.torn.offset);
        size = scanned.torn.offset;
        onTorn({ ...scanned.torn, file: path, truncated: true });
      }
      return { file: new JournalFile(path, owner, fd, size), bodies: scanned.bodies };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Appends one record; returns where it ends in the file. */
  append(payload: string, sync: boolean): number {
    const fd = this.requireFd();
    const frame = encodeFrame(payload);
    if (frame.length > MAX_RECORD_BYTES) {
      throw new RunValueError(`A record of ${frame.length} bytes is larger than the store takes (${MAX_RECORD_BYTES}).`);
    }
    try {
      writeAllSync(fd, frame);
    } catch (error) {
      this.undo(error);
    }
    this.size += frame.length;
    if (sync) this.flush();
    return this.size;
  }

  sync(): void {
    if (this.fd !== undefined && this.fenced === undefined) this.flush();
  }

  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    closeSync(fd);
  }

  /** Cuts a failed write back off, so the file holds exactly the records acknowledged before it. */
  private undo(cause: unknown): never {
    try {
      ftruncateSync(this.fd as number, this.size);
    } catch (truncateError) {
      this.fenced = truncateError;
      throw new RunStoreError(
        `${this.owner}: a write to ${this.path} failed (${errorMessage(cause)}) and could not be undone (${errorMessage(truncateError)}); ` +
          'the file takes no more records in this process. Free space, then resume the run: the partial record is cut off when it is reopened.',
        { cause },
      );
    }
    throw new RunStoreError(`${this.owner}: a write to ${this.path} failed (${errorMessage(cause)}); nothing of it was kept.`, { cause });
  }

  private flush(): void {
    try {
      fdatasyncSync(this.fd as number);
    } catch (error) {
      // After a failed fsync the kernel may have dropped the dirty pages: what was written is unknown.
      this.fenced = error;
      throw new RunStoreError(`${this.owner}: flushing ${this.path} to disk failed (${errorMessage(error)}); the file takes no more records in this process.`, {
        cause: error,
      });
    }
  }

  private requireFd(): number {
    if (this.fd === undefined) throw new RunStoreError(`${this.path} is closed.`);
    if (this.fenced !== undefined) {
      throw new RunStoreError(`${this.owner}: ${this.path} takes no more records after a failed write (${errorMessage(this.fenced)}).`, { cause: this.fenced });
    }
    return this.fd;
  }
}
