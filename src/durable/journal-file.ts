import { closeSync, fdatasyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { encodeFrame, MAX_RECORD_BYTES, scanFrames, type TornTail } from './journal-frame.js';
import { RunStoreCorruptError, RunValueError } from './run-store-errors.js';

/** A torn last record found when a journal was opened or read. */
export interface RecoveredTail extends TornTail {
  file: string;
  /** True when the file was cut back to `offset` (opened to append); false when only skipped (read). */
  truncated: boolean;
}

/** The records of a journal file; a missing file has none. */
export function readJournal(path: string, onTorn: (tail: RecoveredTail) => void): unknown[] {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const scanned = scanFrames(buf, path);
  if (scanned.torn !== undefined) onTorn({ ...scanned.torn, file: path, truncated: false });
  return scanned.payloads.map((payload, i) => parsePayload(payload, path, i));
}

function parsePayload(payload: string, path: string, index: number): unknown {
  try {
    return JSON.parse(payload);
  } catch (error) {
    throw new RunStoreCorruptError(path, `record ${index + 1} holds no JSON although its checksum matches.`, { cause: error });
  }
}

/**
 * One append-only journal file, open for the store's lifetime (reopening per record would cost
 * more than the write). Writes are synchronous `write(2)` calls on an O_APPEND descriptor: the
 * record is in the OS once `append` returns, so a killed process loses nothing it acknowledged;
 * `sync()` makes it survive a power loss too.
 */
export class JournalFile {
  private fd: number | undefined;

  private constructor(
    readonly path: string,
    fd: number,
  ) {
    this.fd = fd;
  }

  /**
   * Opens `path` for appending, creating it. Returns the existing records; a torn last record is
   * cut off (and reported) first, so new records never follow garbage.
   */
  static open(path: string, onTorn: (tail: RecoveredTail) => void): { file: JournalFile; records: unknown[] } {
    const fd = openSync(path, 'a+');
    try {
      const buf = readFileSync(fd);
      const scanned = scanFrames(buf, path);
      if (scanned.torn !== undefined) {
        ftruncateSync(fd, scanned.torn.offset);
        onTorn({ ...scanned.torn, file: path, truncated: true });
      }
      const records = scanned.payloads.map((payload, i) => parsePayload(payload, path, i));
      return { file: new JournalFile(path, fd), records };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  append(payload: string, sync: boolean): void {
    const fd = this.requireFd();
    const frame = encodeFrame(payload);
    if (frame.length > MAX_RECORD_BYTES) {
      throw new RunValueError(`A record of ${frame.length} bytes is larger than the store takes (${MAX_RECORD_BYTES}).`);
    }
    // One write(2) for the whole frame in practice; loop for the rare short write.
    let written = 0;
    while (written < frame.length) written += writeSync(fd, frame, written, frame.length - written);
    if (sync) fdatasyncSync(fd);
  }

  sync(): void {
    if (this.fd !== undefined) fdatasyncSync(this.fd);
  }

  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    closeSync(fd);
  }

  private requireFd(): number {
    if (this.fd === undefined) throw new Error(`${this.path} is closed.`);
    return this.fd;
  }
}
