import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { EventBatch } from './journal-entry.js';
import { parseBody, type RecoveredTail } from './journal-file.js';
import { scanFrames } from './journal-frame.js';
import { readFileNoFollowSync, symlinkRefused } from './no-follow.js';
import { RunStoreCorruptError } from '../store/run-store-errors.js';

/** The records of one generation's journal or events file. */
export interface SegmentRecords {
  /** Each record's payload (see `parseBody`). */
  bodies: Buffer[];
  /** Where the valid records end. */
  end: number;
}

const NO_FOLLOW = (constants.O_NOFOLLOW as number | undefined) ?? 0;

/**
 * A segment read whole (the newest generation, still written): a missing file holds nothing, a
 * torn last record is skipped and reported (`truncated: false`: the file is left to its writer).
 */
export function readOpenSegment(path: string, onTorn: (tail: RecoveredTail) => void): SegmentRecords {
  let buf: Buffer;
  try {
    buf = readFileNoFollowSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { bodies: [], end: 0 };
    throw error;
  }
  const scanned = scanFrames(buf, path);
  if (scanned.torn !== undefined) onTorn({ ...scanned.torn, file: path, truncated: false });
  return { bodies: scanned.bodies, end: scanned.end };
}

/**
 * A sealed segment: exactly its first `length` bytes, which hold whole records only (the seal is
 * the end of the last whole record when it was taken). Whatever follows was appended by a holder
 * after it was taken over, and is never read. Anything short of that is damage.
 */
export function readSealedSegment(path: string, length: number): SegmentRecords {
  if (length === 0) return { bodies: [], end: 0 };
  const buf = readPrefixNoFollow(path, length);
  if (buf.length < length) {
    throw new RunStoreCorruptError(path, `holds ${buf.length} bytes where its seal says ${length} were written; the journal is refused rather than read wrongly.`);
  }
  const scanned = scanFrames(buf, path);
  if (scanned.torn !== undefined) {
    throw new RunStoreCorruptError(path, `record at byte ${scanned.torn.offset} is damaged (${scanned.torn.why}) before the end its seal records.`);
  }
  return { bodies: scanned.bodies, end: scanned.end };
}

/** The sequence number after the last batch of an events segment; undefined when it holds none. */
export function nextSeqAfter(records: SegmentRecords, path: string): number | undefined {
  const lastBody = records.bodies.at(-1);
  if (lastBody === undefined) return undefined;
  const last = parseBody(lastBody, path, records.bodies.length - 1) as EventBatch;
  if (typeof last?.first !== 'number' || !Array.isArray(last.events)) {
    throw new RunStoreCorruptError(path, 'the last event batch has no sequence number.');
  }
  return last.first + last.events.length;
}

/** Up to `length` bytes from the start of `path`, without following a symbolic link; a missing file is empty. */
function readPrefixNoFollow(path: string, length: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NO_FOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return Buffer.alloc(0);
    if (code === 'ELOOP' || code === 'EMLINK') throw symlinkRefused(path, { cause: error });
    throw error;
  }
  try {
    const buf = Buffer.allocUnsafe(Math.min(length, fstatSync(fd).size));
    let read = 0;
    while (read < buf.length) {
      const n = readSync(fd, buf, read, buf.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return buf.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}
