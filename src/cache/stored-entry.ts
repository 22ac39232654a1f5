import type { CachedResponse } from './cache.js';
import { headerProblem, type CacheEntryHeader } from './cache-entry-header.js';
import { isFiniteNonNegative, responseProblem } from './response-shape.js';
import { isRecord } from '../util/is-record.js';

/** What one file of a `FileCacheStore` holds. The key is kept so `bustPrefix` can match and a misplaced file is caught. */
export interface StoredEntry {
  /**
   * Written first, so it is the top of the file: who stored the entry, with which model, and a
   * fingerprint per key part. Entries written before headers existed have none and still hit.
   */
  header?: CacheEntryHeader;
  format: 1;
  key: string;
  /** Epoch ms (by the store's clock) after which the entry is a miss; null never expires. */
  expiresAt: number | null;
  response: CachedResponse;
}

/** The entry in a file's text, or undefined when it is not one (half-written, hand-edited, another format). */
export function parseEntry(text: string): StoredEntry | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(data) || data.format !== 1 || typeof data.key !== 'string') return undefined;
  // `1e400` parses as Infinity: an expiry (or storedAt) that is not a finite time is damage.
  if (data.expiresAt !== null && !isFiniteNonNegative(data.expiresAt)) return undefined;
  // A header that is there but malformed means the file was damaged or tampered with.
  if (data.header !== undefined && headerProblem(data.header) !== undefined) return undefined;
  return responseProblem(data.response) === undefined ? (data as unknown as StoredEntry) : undefined;
}
