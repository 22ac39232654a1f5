import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { UsageError } from '../errors/groundswell-error.js';
import type { Cache, CachedResponse, CacheMetrics, CacheSetOptions } from './cache.js';
import { CacheStoreError } from './cache-store-error.js';
import { requirePositiveInteger, storedJson } from './store-input.js';

export interface FileCacheStoreOptions {
  /** Directory holding one JSON file per entry; created if missing. */
  dir: string;
  /** Default time to live; entries without one never expire. */
  ttlMs?: number;
  /** Time source for TTLs (default `Date`: expiry times are epoch ms, valid across processes). */
  clock?: { now(): number };
}

/** What one file holds. The key is kept so `bustPrefix` can match and a misplaced file is caught. */
interface StoredEntry {
  format: 1;
  key: string;
  /** Epoch ms (by the store's clock) after which the entry is a miss; null never expires. */
  expiresAt: number | null;
  response: CachedResponse;
}

/** `<label>-<sha256 of the key>.json`; temp files end in `.tmp` and never match. */
const ENTRY_FILE = /^[\w-]+-[0-9a-f]{64}\.json$/;

/**
 * Records responses to disk and replays them, e.g. to run a workflow offline against answers
 * recorded earlier. One pretty-printed JSON file per key, written atomically (temp file + rename),
 * so a reader sees the old entry or the new one, never half of one. A file that cannot be read or
 * parsed is a miss and is removed: a damaged recording costs a model call, never a crash.
 *
 * `size` counts the entry files found at construction plus this instance's own writes and removals;
 * another process writing the same directory is not seen until it is read.
 */
export class FileCacheStore implements Cache {
  readonly dir: string;
  private readonly ttlMs: number | undefined;
  private readonly clock: { now(): number };
  private readonly files: Set<string>;
  private readonly counts = { hits: 0, misses: 0, sets: 0, busts: 0, evictions: 0 };

  constructor(options: FileCacheStoreOptions) {
    if (typeof options?.dir !== 'string' || options.dir === '') {
      throw new UsageError('FileCacheStore needs `dir`, the directory to keep its files in.');
    }
    requirePositiveInteger('FileCacheStore ttlMs', options.ttlMs);
    this.dir = resolve(options.dir);
    this.ttlMs = options.ttlMs;
    this.clock = options.clock ?? Date;
    try {
      mkdirSync(this.dir, { recursive: true });
      this.files = new Set(readdirSync(this.dir).filter((name) => ENTRY_FILE.test(name)));
    } catch (error) {
      throw new CacheStoreError(`FileCacheStore cannot use the directory ${this.dir}.`, { cause: error });
    }
  }

  async get(key: string): Promise<CachedResponse | undefined> {
    const entry = await this.live(entryFileName(key), key);
    if (entry === undefined) {
      this.counts.misses++;
      return undefined;
    }
    this.counts.hits++;
    return entry.response;
  }

  async set(key: string, value: CachedResponse, options?: CacheSetOptions): Promise<void> {
    requirePositiveInteger('Cache set ttlMs', options?.ttlMs);
    const ttl = options?.ttlMs ?? this.ttlMs;
    const entry: StoredEntry = {
      format: 1,
      key,
      expiresAt: ttl === undefined ? null : this.clock.now() + ttl,
      response: value,
    };
    const text = `${storedJson(key, entry, 2)}\n`;
    const name = entryFileName(key);
    // Unique per write, so concurrent sets of one key never share a temp file.
    const temp = join(this.dir, `${name}.${randomUUID()}.tmp`);
    try {
      await writeFile(temp, text, { encoding: 'utf8', flag: 'wx' });
      await rename(temp, join(this.dir, name));
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw new CacheStoreError(`FileCacheStore could not write the entry for "${key}" in ${this.dir}.`, { cause: error });
    }
    this.files.add(name);
    this.counts.sets++;
  }

  async bust(key: string): Promise<boolean> {
    const name = entryFileName(key);
    if ((await this.live(name, key)) === undefined) return false;
    const removed = await this.remove(name);
    if (removed) this.counts.busts++;
    return removed;
  }

  async bustPrefix(prefix: string): Promise<number> {
    // The directory, not `files`: entries another process recorded count too.
    const names = (await readdir(this.dir)).filter((name) => ENTRY_FILE.test(name));
    let removed = 0;
    for (const name of names) {
      const entry = await this.live(name, undefined);
      if (entry !== undefined && entry.key.startsWith(prefix) && (await this.remove(name))) removed++;
    }
    this.counts.busts += removed;
    return removed;
  }

  metrics(): CacheMetrics {
    return { ...this.counts, size: this.files.size };
  }

  /**
   * The entry in `name` if it is readable, well-formed, belongs to `key` (when given) and has not
   * expired. Anything else is cleaned up on the way: bad files removed, expired ones evicted.
   */
  private async live(name: string, key: string | undefined): Promise<StoredEntry | undefined> {
    let text: string;
    try {
      text = await readFile(join(this.dir, name), 'utf8');
    } catch (error) {
      if (isNotFound(error)) {
        this.files.delete(name);
        return undefined;
      }
      await this.remove(name);
      return undefined;
    }
    const entry = parseEntry(text);
    if (entry === undefined || (key !== undefined && entry.key !== key)) {
      await this.remove(name);
      return undefined;
    }
    if (entry.expiresAt !== null && this.clock.now() > entry.expiresAt) {
      if (await this.remove(name)) this.counts.evictions++;
      return undefined;
    }
    return entry;
  }

  /** Never throws: a file that cannot be removed stays counted and is retried on the next read. */
  private async remove(name: string): Promise<boolean> {
    try {
      await rm(join(this.dir, name));
      this.files.delete(name);
      return true;
    } catch (error) {
      // Already gone (another caller removed it): no longer present, but not ours to count.
      if (isNotFound(error)) this.files.delete(name);
      return false;
    }
  }
}

/**
 * A safe file name for any key: a label from the key's namespace (letters, digits, `_`, `-` only,
 * so `..` or `/` can never appear) for people browsing the directory, then the key's SHA-256.
 */
function entryFileName(key: string): string {
  const colon = key.indexOf(':');
  const label = (colon > 0 ? key.slice(0, colon) : 'key').replace(/[^\w-]/g, '_').slice(0, 48);
  return `${label}-${createHash('sha256').update(key).digest('hex')}.json`;
}

function parseEntry(text: string): StoredEntry | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isStoredEntry(data) ? data : undefined;
}

function isStoredEntry(data: unknown): data is StoredEntry {
  if (!isRecord(data) || data.format !== 1 || typeof data.key !== 'string') return false;
  if (data.expiresAt !== null && typeof data.expiresAt !== 'number') return false;
  const response = data.response;
  if (!isRecord(response)) return false;
  const usage = response.usage;
  return (
    typeof response.model === 'string' &&
    (response.stopReason === null || typeof response.stopReason === 'string') &&
    typeof response.storedAt === 'number' &&
    isRecord(usage) &&
    ['inputTokens', 'outputTokens', 'cacheCreationInputTokens', 'cacheReadInputTokens'].every(
      (field) => typeof usage[field] === 'number',
    )
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ENOENT';
}
