import { crc32 } from '../../util/crc32.js';
import { RunStoreCorruptError } from '../store/run-store-errors.js';

/**
 * A record on disk: a 12-byte header (payload length, CRC-32 of the payload, CRC-32 of those
 * eight bytes; little-endian u32 each) and the UTF-8 JSON payload. The header's own checksum
 * proves the length, so a damaged length is never mistaken for a torn tail.
 */
const FRAME_HEADER_BYTES = 12;

/** Larger records are refused on write and treated as damage on read. */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;

export function encodeFrame(payload: string): Buffer {
  const body = Buffer.from(payload, 'utf8');
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + body.length);
  frame.writeUInt32LE(body.length, 0);
  frame.writeUInt32LE(crc32(body), 4);
  frame.writeUInt32LE(crc32(frame.subarray(0, 8)), 8);
  body.copy(frame, FRAME_HEADER_BYTES);
  return frame;
}

/** A last record that was cut short (a write the process or machine did not finish). */
export interface TornTail {
  /** Where the valid records end: the file is truncated to this length to recover. */
  offset: number;
  /** Bytes after `offset`. */
  bytes: number;
  why: string;
}

export interface ScannedJournal {
  /** Each record's payload: views into the scanned buffer (decoded only where a caller needs it). */
  bodies: Buffer[];
  /** Where the valid records end. */
  end: number;
  torn?: TornTail;
}

/**
 * Splits a journal into its records. A damaged LAST record (cut short, a payload checksum that
 * fails in the record ending the file, or a tail of zeros a power loss leaves) is reported as
 * torn; damage anywhere else is a `RunStoreCorruptError` naming the file and the record.
 */
export function scanFrames(buf: Buffer, file: string): ScannedJournal {
  const bodies: Buffer[] = [];
  let offset = 0;
  const torn = (why: string): ScannedJournal => ({ bodies, end: offset, torn: { offset, bytes: buf.length - offset, why } });
  const corrupt = (why: string): never => {
    throw new RunStoreCorruptError(file, `record ${bodies.length + 1} at byte ${offset} is damaged (${why}); the journal is refused rather than read wrongly.`);
  };
  while (offset < buf.length) {
    const left = buf.length - offset;
    if (left < FRAME_HEADER_BYTES) return torn('an incomplete record header');
    const length = buf.readUInt32LE(offset);
    const bodyCrc = buf.readUInt32LE(offset + 4);
    if (crc32(buf.subarray(offset, offset + 8)) !== buf.readUInt32LE(offset + 8)) {
      if (isZeros(buf, offset)) return torn('zeros after the last record');
      corrupt('a record header checksum fails');
    }
    if (length > MAX_RECORD_BYTES) corrupt(`a record of ${length} bytes`);
    const end = offset + FRAME_HEADER_BYTES + length;
    if (end > buf.length) return torn(`a record of ${length} bytes with ${left - FRAME_HEADER_BYTES} written`);
    const body = buf.subarray(offset + FRAME_HEADER_BYTES, end);
    if (crc32(body) !== bodyCrc) {
      if (end === buf.length) return torn('the last record checksum fails');
      corrupt('a record checksum fails');
    }
    bodies.push(body);
    offset = end;
  }
  return { bodies, end: offset };
}

function isZeros(buf: Buffer, from: number): boolean {
  for (let i = from; i < buf.length; i += 1) if (buf[i] !== 0) return false;
  return true;
}
