import { isRecord } from '../util/is-record.js';

/**
 * A `FileCacheStore`'s secondary index: one small file per identity (agent and prompt), naming
 * the key last stored with it, so a miss can find that entry without reading the directory.
 * `latest-<identity>.idx`: not `.json`, so it never counts as an entry.
 */
export const INDEX_FILE = /^latest-[0-9a-f]{64}\.idx$/;

const IDENTITY = /^[0-9a-f]{64}$/;

/** Whether `identity` may name an index file: a SHA-256 in hex, nothing a path could be made of. */
export function isIdentity(identity: string): boolean {
  return IDENTITY.test(identity);
}

export function indexFileName(identity: string): string {
  return `latest-${identity}.idx`;
}

export function indexText(identity: string, key: string): string {
  return `${JSON.stringify({ format: 1, identity, key })}\n`;
}

/** The key an index file names, or undefined when it is not one of ours for `identity`. */
export function indexedKey(text: string, identity: string | undefined): string | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(data) || data.format !== 1 || typeof data.key !== 'string' || typeof data.identity !== 'string') return undefined;
  if (identity !== undefined ? data.identity !== identity : !isIdentity(data.identity)) return undefined;
  return data.key;
}

/** The identity an index file name stands for. */
export function identityOfIndexFile(name: string): string {
  return name.slice('latest-'.length, -'.idx'.length);
}
