import { createHash } from 'node:crypto';
import { UsageError } from '../errors/groundswell-error.js';
import type { Cache, CachedResponse, CacheLookup, CacheMetrics, CacheSetOptions } from '../cache/cache.js';
import type { CacheEntryHeader } from '../cache/cache-entry-header.js';
import { CacheStoreError } from '../cache/cache-store-error.js';
import { isIdentity } from '../cache/identity-index-file.js';
import { requireKey, requirePositiveInteger, storedHeader, storedJson, storedResponse } from '../cache/store-input.js';
import { parseEntry, type StoredEntry } from '../cache/stored-entry.js';
import { prefixPattern } from './glob-pattern.js';
import { RedisConnection } from './redis-connection.js';
import { RedisScriptRunner } from './redis-script-runner.js';
import { REMOVE_IF_UNCHANGED, SET_ENTRY } from './redis-scripts.js';
import type { RedisCacheStoreOptions } from './redis-store-options.js';

const DEFAULT_PREFIX = 'groundswell:cache:';
const DEFAULT_GRACE_MS = 60_000;
const DEFAULT_TIMEOUT_MS = 1000;
const DEFAULT_BACKOFF_MS = 5000;
/**
 * Ends the prefix in every key (`<prefix>e|<key>`, `<prefix>i|<identity>`). A prefix may not
 * contain it, so no key of one store starts with another store's `<prefix>e|` however the two
 * prefixes nest (`p:` and `p:e:sub:`): a bust or a read never reaches another store's entries.
 */
const SEPARATOR = '|';
/** Keys asked of SCAN per round trip (a hint to Redis) while busting a prefix. */
const SCAN_COUNT = 500;

type Inspected =
  | { readonly kind: 'live'; readonly entry: StoredEntry; readonly text: string }
  | { readonly kind: 'absent' }
  | { readonly kind: 'damaged' | 'expired'; readonly removed: boolean };

/** One entry read for removal: its Redis key, its identity's index key and the text read. */
interface Removal {
  readonly redisKey: string;
  readonly indexKey: string;
  readonly key: string;
  readonly text: string;
}

/**
 * A cache shared by every process that reaches one Redis, so workers reuse each other's answers.
 * Each entry is one string key (`<prefix>e|<cache key>`) holding the same JSON a `FileCacheStore`
 * file holds; an index key per identity (`<prefix>i|<identity>`) names the key last stored for that
 * agent and prompt (for `latestEntry`). Redis expires keys (`PX`, the ttl plus `expiryGraceMs`);
 * `bustPrefix` walks the keys with SCAN (never KEYS, which blocks the server) and removes them in
 * batches. Expired and damaged entries are removed compare-and-delete in a Lua script, so an entry
 * another process wrote meanwhile is never lost.
 *
 * Redis being down costs misses, not failures: every operation fails within `timeoutMs` with a
 * `CacheStoreError`, which the agent reports (`cacheStoreError` event) and answers from the model;
 * after such a failure Redis is skipped for `backoffMs` (operations fail at once), then tried again.
 *
 * `size` counts the entries this instance wrote or read and has not seen go; entries other
 * processes hold are not counted until read. Call `close()` when done with a store given a `url`:
 * its open connection keeps the process alive.
 */
export class RedisCacheStore implements Cache {
  readonly prefix: string;
  private readonly redis: RedisConnection;
  private readonly scripts: RedisScriptRunner;
  private readonly ttlMs: number | undefined;
  private readonly graceMs: number;
  private readonly clock: { now(): number };
  private readonly held = new Set<string>();
  private readonly counts = { hits: 0, misses: 0, sets: 0, busts: 0, evictions: 0 };

  constructor(options: RedisCacheStoreOptions) {
    const hasClient = options?.client !== undefined;
    const hasUrl = options?.url !== undefined;
    if (hasClient === hasUrl) throw new UsageError('RedisCacheStore needs one of `client` (an ioredis client) and `url` (a Redis URL).');
    if (hasUrl && (typeof options.url !== 'string' || options.url === '')) throw new UsageError('RedisCacheStore `url` must be a non-empty string.');
    if (options.prefix !== undefined && typeof options.prefix !== 'string') throw new UsageError('RedisCacheStore `prefix` must be a string.');
    if (options.prefix?.includes(SEPARATOR) === true) {
      throw new UsageError(`RedisCacheStore \`prefix\` must not contain "${SEPARATOR}" (it ends the prefix in every key), got ${JSON.stringify(options.prefix)}.`);
    }
    requirePositiveInteger('RedisCacheStore ttlMs', options.ttlMs);
    requirePositiveInteger('RedisCacheStore timeoutMs', options.timeoutMs);
    const grace = options.expiryGraceMs;
    if (grace !== undefined && !(Number.isSafeInteger(grace) && grace >= 0)) {
      throw new UsageError(`RedisCacheStore expiryGraceMs must be a whole number of ms, 0 or more, got ${String(grace)}.`);
    }
    const backoffMs = options.backoffMs;
    if (backoffMs !== undefined && !(Number.isSafeInteger(backoffMs) && backoffMs >= 0)) {
      throw new UsageError(`RedisCacheStore backoffMs must be a whole number of ms, 0 or more, got ${String(backoffMs)}.`);
    }
    this.prefix = options.prefix ?? DEFAULT_PREFIX;
    this.ttlMs = options.ttlMs;
    this.graceMs = grace ?? DEFAULT_GRACE_MS;
    this.clock = options.clock ?? Date;
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.redis = new RedisConnection(options.client !== undefined ? { client: options.client } : { url: options.url as string }, timeoutMs, {
      backoffMs: backoffMs ?? DEFAULT_BACKOFF_MS,
      clock: this.clock,
    });
    this.scripts = new RedisScriptRunner(this.redis);
  }

  async get(key: string): Promise<CachedResponse | undefined> {
    return (await this.lookup(key)).response;
  }

  async lookup(key: string): Promise<CacheLookup> {
    requireKey('Cache key', key);
    const state = await this.inspect(key);
    if (state.kind !== 'live') {
      this.counts.misses++;
      return { response: undefined, reason: state.kind };
    }
    this.counts.hits++;
    return { response: state.entry.response };
  }

  async latestEntry(identity: string): Promise<CacheEntryHeader | undefined> {
    requireKey('Cache identity', identity);
    if (!isIdentity(identity)) return undefined;
    const key = await this.read(this.indexKey(identity));
    if (key === undefined) return undefined;
    const state = await this.inspect(key);
    return state.kind === 'live' && state.entry.header?.identity === identity ? state.entry.header : undefined;
  }

  async set(key: string, value: CachedResponse, options?: CacheSetOptions): Promise<void> {
    requireKey('Cache key', key);
    requirePositiveInteger('Cache set ttlMs', options?.ttlMs);
    const header = storedHeader(key, options?.header);
    const ttl = options?.ttlMs ?? this.ttlMs;
    const expiresAt = ttl === undefined ? null : this.now() + ttl;
    const entry: StoredEntry = { ...(header !== undefined ? { header } : {}), format: 1, key, expiresAt, response: storedResponse(key, value) };
    const text = storedJson(key, entry);
    const redisKey = this.entryKey(key);
    const indexKey = header === undefined ? redisKey : this.indexKey(header.identity);
    const px = ttl === undefined ? '' : String(ttl + this.graceMs);
    await this.scripts.run(SET_ENTRY, [redisKey, indexKey], [text, px, header === undefined ? '' : key]);
    this.held.add(key);
    this.counts.sets++;
  }

  async bust(key: string): Promise<boolean> {
    requireKey('Cache key', key);
    const state = await this.inspect(key);
    if (state.kind !== 'live') return false;
    const [removed] = await this.remove([this.removal(key, state.text, state.entry.header)]);
    if (removed === true) this.counts.busts++;
    return removed === true;
  }

  async bustPrefix(prefix: string): Promise<number> {
    requireKey('Cache bustPrefix prefix', prefix);
    const pattern = prefixPattern(this.entryKey(prefix));
    let cursor = '0';
    let busted = 0;
    do {
      const [next, keys] = scanReply(await this.redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT));
      cursor = next;
      if (keys.length > 0) busted += await this.bustBatch(keys, prefix);
    } while (cursor !== '0');
    this.counts.busts += busted;
    return busted;
  }

  metrics(): CacheMetrics {
    return { ...this.counts, size: this.held.size };
  }

  /** Closes the connection the store opened for its `url`; an injected client stays open. */
  close(): Promise<void> {
    return this.redis.close();
  }

  /** One SCAN batch: live entries are busted, expired and damaged ones removed on the way (as reads would). */
  private async bustBatch(redisKeys: string[], prefix: string): Promise<number> {
    const texts = await this.redis.call('MGET', ...redisKeys);
    const removals: Removal[] = [];
    const kinds: Array<'bust' | 'expired' | 'damaged'> = [];
    redisKeys.forEach((redisKey, i) => {
      const text: unknown = Array.isArray(texts) ? texts[i] : undefined;
      if (typeof text !== 'string') return;
      const key = redisKey.slice(this.entryKey('').length);
      const entry = parseEntry(text);
      const kind = entry === undefined || entry.key !== key ? 'damaged' : this.isExpired(entry) ? 'expired' : 'bust';
      // SCAN matched the Redis key; the prefix is checked on the key the entry says it has.
      if (kind === 'bust' && !key.startsWith(prefix)) return;
      removals.push(this.removal(key, text, kind === 'damaged' ? undefined : entry?.header));
      kinds.push(kind);
    });
    const removed = await this.remove(removals);
    const count = (kind: string): number => removed.filter((done, i) => done && kinds[i] === kind).length;
    this.counts.evictions += count('expired');
    return count('bust');
  }

  /** Reads one entry, removing it (compare-and-delete) when it is expired or damaged. */
  private async inspect(key: string): Promise<Inspected> {
    const text = await this.read(this.entryKey(key));
    if (text === undefined) {
      this.held.delete(key);
      return { kind: 'absent' };
    }
    const entry = parseEntry(text);
    if (entry === undefined || entry.key !== key) {
      const [removed] = await this.remove([this.removal(key, text, undefined)]).catch(() => [false]);
      return { kind: 'damaged', removed: removed === true };
    }
    if (this.isExpired(entry)) {
      const [removed] = await this.remove([this.removal(key, text, entry.header)]).catch(() => [false]);
      if (removed === true) this.counts.evictions++;
      return { kind: 'expired', removed: removed === true };
    }
    this.held.add(key);
    return { kind: 'live', entry, text };
  }

  /** The string under `redisKey`, or undefined when there is none (or another type of value, which no store of ours wrote). */
  private async read(redisKey: string): Promise<string | undefined> {
    try {
      const text = await this.redis.call('GET', redisKey);
      return typeof text === 'string' ? text : undefined;
    } catch (error) {
      if (error instanceof CacheStoreError && /^WRONGTYPE/.test(errorText(error.cause))) return undefined;
      throw error;
    }
  }

  /** Compare-and-delete, one script call for all: true for each entry that still held what was read. */
  private async remove(removals: readonly Removal[]): Promise<boolean[]> {
    if (removals.length === 0) return [];
    const keys = removals.flatMap((r) => [r.redisKey, r.indexKey]);
    const args = removals.flatMap((r) => [sha1(r.text), r.key]);
    const reply = await this.scripts.run(REMOVE_IF_UNCHANGED, keys, args);
    const removed = removals.map((_r, i) => Array.isArray(reply) && reply[i] === 1);
    removals.forEach((r, i) => {
      if (removed[i] === true) this.held.delete(r.key);
    });
    return removed;
  }

  private removal(key: string, text: string, header: CacheEntryHeader | undefined): Removal {
    const redisKey = this.entryKey(key);
    return { redisKey, indexKey: header === undefined ? redisKey : this.indexKey(header.identity), key, text };
  }

  private isExpired(entry: StoredEntry): boolean {
    return entry.expiresAt !== null && this.clock.now() > entry.expiresAt;
  }

  private entryKey(key: string): string {
    return `${this.prefix}e${SEPARATOR}${key}`;
  }

  private indexKey(identity: string): string {
    return `${this.prefix}i${SEPARATOR}${identity}`;
  }

  /** The injected clock's reading; a time that is not finite would write an entry that never expires. */
  private now(): number {
    const now = this.clock.now();
    if (!Number.isFinite(now)) throw new UsageError(`RedisCacheStore clock.now() must return a finite time, got ${String(now)}.`);
    return now;
  }
}

function scanReply(reply: unknown): [string, string[]] {
  if (!Array.isArray(reply) || typeof reply[0] !== 'string' || !Array.isArray(reply[1])) {
    throw new CacheStoreError('Redis SCAN answered something that is not a cursor and a list of keys.');
  }
  return [reply[0], reply[1].filter((key): key is string => typeof key === 'string')];
}

function sha1(text: string): string {
  return createHash('sha1').update(text, 'utf8').digest('hex');
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
