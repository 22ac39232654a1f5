import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { UsageError } from '../errors/groundswell-error.js';
import { writeFileAtomically } from '../util/atomic-write.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../util/private-modes.js';
import type { Cache, CachedResponse, CacheLookup, CacheMetrics, CacheSetOptions } from './cache.js';
import type { CacheEntryHeader } from './cache-entry-header.js';
import { CacheStoreError } from './cache-store-error.js';
import { identityOfIndexFile, INDEX_FILE, indexedKey, indexFileName, indexText, isIdentity } from './identity-index-file.js';
import { removeIfUnchanged } from './remove-if-unchanged.js';
import { requireKey, requirePositiveInteger, storedHeader, storedJson, storedResponse } from './store-input.js';
import { parseEntry, type StoredEntry } from './stored-entry.js';
import { removeStaleTempFiles, tempPath } from './temp-files.js';

export interface FileCacheStoreOptions {
  /** Directory holding one JSON file per entry; created if missing (0700; its files are 0600). */
  dir: string;
  /** Default time to live; entries without one never expire. */
  ttlMs?: number;
  /** Time source for TTLs (default `Date`: expiry times are epoch ms, valid across processes). */
  clock?: { now(): number };
  /**
   * Temp files (of writes a killed process never finished) older than this, in real time, are
   * removed when the store opens and on `prune()`. Default 10 minutes: far longer than any write
   * takes, so a writer still busy in another process keeps its file.
   */
  staleTempMs?: number;
}

/** See `staleTempMs`. */
const DEFAULT_STALE_TEMP_MS = 10 * 60_000;

/** `<label>-<sha256 of the key>.json`; temp files end in `.tmp` and never match. */
const ENTRY_FILE = /^[\w-]+-[0-9a-f]{64}\.json$/;

/**
 * Records responses to disk and replays them, e.g. to run a workflow offline against answers
 * recorded earlier. One pretty-printed JSON file per key, written atomically (temp file + rename),
 * so a reader sees the old entry or the new one, never half of one. A file that cannot be read or
 * parsed is a miss and is removed: a damaged recording costs a model call, never a crash.
 * Expired and damaged files are removed compare-and-delete (only if they still hold what was
 * read), so several stores and processes can share one directory without losing fresh entries.
 *
 * `size` counts the entry files found at construction plus this instance's own writes and removals;
 * another process writing the same directory is not seen until it is read.
 *
 * An entry stored with a header has it at the top of its file, and a small index file
 * `latest-<identity>.idx` names the key last stored for that agent and prompt (for `latestEntry`).
 */
export class FileCacheStore implements Cache {
  readonly dir: string;
  private readonly ttlMs: number | undefined;
  private readonly clock: { now(): number };
  private readonly staleTempMs: number;
  private readonly files: Set<string>;
  private readonly counts = { hits: 0, misses: 0, sets: 0, busts: 0, evictions: 0 };

  constructor(options: FileCacheStoreOptions) {
    if (typeof options?.dir !== 'string' || options.dir === '') {
      throw new UsageError('FileCacheStore needs `dir`, the directory to keep its files in.');
    }
    requirePositiveInteger('FileCacheStore ttlMs', options.ttlMs);
    requirePositiveInteger('FileCacheStore staleTempMs', options.staleTempMs);
    this.dir = resolve(options.dir);
    this.ttlMs = options.ttlMs;
    this.clock = options.clock ?? Date;
    this.staleTempMs = options.staleTempMs ?? DEFAULT_STALE_TEMP_MS;
    try {
      // Entries hold prompts and answers: what this creates is the user's alone. A folder that
      // exists already keeps its mode (the user chose it); the files in it are private anyway.
      mkdirSync(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      removeStaleTempFiles(this.dir, this.staleTempMs);
      this.files = new Set(readdirSync(this.dir).filter((name) => ENTRY_FILE.test(name)));
    } catch (error) {
      throw new CacheStoreError(`FileCacheStore cannot use the directory ${this.dir}.`, { cause: error });
    }
  }

  async get(key: string): Promise<CachedResponse | undefined> {
    return (await this.lookup(key)).response;
  }

  async lookup(key: string): Promise<CacheLookup> {
    requireKey('Cache key', key);
    const state = await this.inspect(entryFileName(key), key);
    if (state.kind !== 'live') {
      this.counts.misses++;
      return { response: undefined, reason: state.kind };
    }
    this.counts.hits++;
    return { response: state.entry.response };
  }

  async latestEntry(identity: string): Promise<CacheEntryHeader | undefined> {
    requireKey('Cache identity', identity);
    // It names a file: only a hash may (no `..`, no `/`).
    if (!isIdentity(identity)) return undefined;
    let text: string;
    try {
      text = await readFile(join(this.dir, indexFileName(identity)), 'utf8');
    } catch {
      return undefined;
    }
    const key = indexedKey(text, identity);
    if (key === undefined) return undefined;
    const entry = await this.live(entryFileName(key), key);
    return entry?.header?.identity === identity ? entry.header : undefined;
  }

  async set(key: string, value: CachedResponse, options?: CacheSetOptions): Promise<void> {
    requireKey('Cache key', key);
    requirePositiveInteger('Cache set ttlMs', options?.ttlMs);
    const header = storedHeader(key, options?.header);
    const ttl = options?.ttlMs ?? this.ttlMs;
    const expiresAt = ttl === undefined ? null : this.now() + ttl;
    // The header first: it is the top of the file, what a person opening it reads.
    const entry: StoredEntry = { ...(header !== undefined ? { header } : {}), format: 1, key, expiresAt, response: storedResponse(key, value) };
    const name = entryFileName(key);
    try {
      await this.writeAtomically(name, `${storedJson(key, entry, 2)}\n`);
    } catch (error) {
      throw new CacheStoreError(`FileCacheStore could not write the entry for "${key}" in ${this.dir}.`, { cause: error });
    }
    this.files.add(name);
    this.counts.sets++;
    if (header !== undefined) {
      // Best effort: the index only serves diagnostics, and the answer is stored already.
      await this.writeAtomically(indexFileName(header.identity), indexText(header.identity, key)).catch(() => undefined);
    }
  }

  async bust(key: string): Promise<boolean> {
    requireKey('Cache key', key);
    const name = entryFileName(key);
    if ((await this.live(name, key)) === undefined) return false;
    const removed = await this.remove(name);
    if (removed) this.counts.busts++;
    return removed;
  }

  async bustPrefix(prefix: string): Promise<number> {
    requireKey('Cache bustPrefix prefix', prefix);
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
   * Removes what reads would remove lazily: expired and damaged entries (compare-and-delete, as
   * on read), index files whose entry is gone (`indexes`), and stale temp files. For long-lived
   * directories whose old keys are never read again.
   */
  async prune(): Promise<{ expired: number; damaged: number; indexes: number; temp: number }> {
    const evictionsBefore = this.counts.evictions;
    let damaged = 0;
    const names = await readdir(this.dir);
    for (const name of names.filter((name) => ENTRY_FILE.test(name))) {
      const state = await this.inspect(name, undefined);
      if (state.kind === 'damaged' && state.removed) damaged++;
    }
    let indexes = 0;
    for (const name of names.filter((name) => INDEX_FILE.test(name))) {
      if (await this.pruneIndex(name)) indexes++;
    }
    const temp = removeStaleTempFiles(this.dir, this.staleTempMs);
    return { expired: this.counts.evictions - evictionsBefore, damaged, indexes, temp };
  }

  /** Removes index file `name` when it is unreadable or its entry is gone (compare-and-delete). */
  private async pruneIndex(name: string): Promise<boolean> {
    let text: string;
    try {
      text = await readFile(join(this.dir, name), 'utf8');
    } catch {
      return false;
    }
    const identity = identityOfIndexFile(name);
    const key = indexedKey(text, identity);
    if (key !== undefined && (await this.live(entryFileName(key), key))?.header?.identity === identity) return false;
    try {
      return (await removeIfUnchanged(this.dir, name, text)) === 'removed';
    } catch {
      return false;
    }
  }

  /** Temp file, then rename (the temp name is the store's own, so a killed writer's leftover is swept). */
  private writeAtomically(name: string, text: string): Promise<void> {
    return writeFileAtomically(join(this.dir, name), text, tempPath(this.dir, name), PRIVATE_FILE_MODE);
  }

  /** The injected clock's reading; a time that is not finite would write an entry that never expires. */
  private now(): number {
    const now = this.clock.now();
    if (!Number.isFinite(now)) throw new UsageError(`FileCacheStore clock.now() must return a finite time, got ${String(now)}.`);
    return now;
  }

  /** The entry in `name` if it is readable, well-formed, belongs to `key` (when given) and has not expired. */
  private async live(name: string, key: string | undefined): Promise<StoredEntry | undefined> {
    const state = await this.inspect(name, key);
    return state.kind === 'live' ? state.entry : undefined;
  }

  /**
   * Reads one entry file and cleans up on the way: a damaged file or an expired entry is removed,
   * but only if the file still holds what was read (see `removeIfUnchanged`).
   */
  private async inspect(
    name: string,
    key: string | undefined,
  ): Promise<{ kind: 'live'; entry: StoredEntry } | { kind: 'absent' } | { kind: 'damaged' | 'expired'; removed: boolean }> {
    let text: string;
    try {
      text = await readFile(join(this.dir, name), 'utf8');
    } catch (error) {
      if (isNotFound(error)) {
        this.files.delete(name);
        return { kind: 'absent' };
      }
      // Not readable as a file (a directory in its place, no permission): a miss, left alone.
      return { kind: 'damaged', removed: false };
    }
    const entry = parseEntry(text);
    if (entry === undefined || (key !== undefined && entry.key !== key)) {
      return { kind: 'damaged', removed: await this.removeRead(name, text) };
    }
    if (entry.expiresAt !== null && this.clock.now() > entry.expiresAt) {
      const removed = await this.removeRead(name, text);
      if (removed) this.counts.evictions++;
      return { kind: 'expired', removed };
    }
    this.files.add(name);
    return { kind: 'live', entry };
  }

  /** Removes `name` if it still holds `text`; never throws. */
  private async removeRead(name: string, text: string): Promise<boolean> {
    try {
      const outcome = await removeIfUnchanged(this.dir, name, text);
      if (outcome !== 'changed') this.files.delete(name);
      return outcome === 'removed';
    } catch {
      return false;
    }
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

function isNotFound(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ENOENT';
}
