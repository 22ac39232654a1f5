import { LRUCache } from 'lru-cache';
import type { Cache, CachedResponse, CacheLookup, CacheMetrics, CacheSetOptions } from './cache.js';
import type { CacheEntryHeader } from './cache-entry-header.js';
import { deepFreeze } from '../util/deep-freeze.js';
import { requireKey, requirePositiveInteger, storedHeader, storedResponse } from './store-input.js';

/**
 * One entry: the response as JSON text, for `get` (each caller gets a copy of its own); what
 * `lookup` answers, the same response parsed once and deep-frozen (a hit neither parses nor
 * allocates, and nobody can change what is stored); and its frozen header.
 */
interface Entry {
  readonly json: string;
  readonly found: CacheLookup;
  readonly header: CacheEntryHeader | undefined;
  /** UTF-8 bytes of the response JSON plus the header JSON, what `maxBytes` counts. */
  readonly bytes: number;
}

export interface LruCacheStoreOptions {
  /** Most entries held; the least recently used goes first (default 1000). */
  maxEntries?: number;
  /** Most bytes held, counted as the UTF-8 length of each entry's JSON (response and header). */
  maxBytes?: number;
  /** Default time to live; entries without one never expire. */
  ttlMs?: number;
  /**
   * Time source for TTLs (default `performance`); inject one to test expiry without waiting.
   * Readings must be above 0: lru-cache takes a start time of 0 to mean "no TTL".
   */
  clock?: { now(): number };
}

const ABSENT: CacheLookup = Object.freeze({ response: undefined, reason: 'absent' as const });
const EXPIRED: CacheLookup = Object.freeze({ response: undefined, reason: 'expired' as const });

/** The default store: in memory, bounded by count and bytes, with TTLs and metrics. */
export class LruCacheStore implements Cache {
  private readonly lru: LRUCache<string, Entry>;
  private readonly counts = { hits: 0, misses: 0, sets: 0, busts: 0, evictions: 0 };
  /** Identity (agent and prompt) to the key last stored with it; dropped with that entry. */
  private readonly latest = new Map<string, string>();
  private readonly readStatus: LRUCache.Status<string, Entry> = {};

  constructor(options: LruCacheStoreOptions = {}) {
    requirePositiveInteger('LruCacheStore maxEntries', options.maxEntries);
    requirePositiveInteger('LruCacheStore maxBytes', options.maxBytes);
    requirePositiveInteger('LruCacheStore ttlMs', options.ttlMs);
    this.lru = new LRUCache<string, Entry>({
      max: options.maxEntries ?? 1000,
      ...(options.maxBytes !== undefined ? { maxSize: options.maxBytes, sizeCalculation: (entry: Entry) => entry.bytes } : {}),
      ...(options.ttlMs !== undefined ? { ttl: options.ttlMs } : {}),
      ...(options.clock !== undefined ? { perf: options.clock } : {}),
      // lru-cache otherwise reuses one clock reading for 1ms via a timer; reading every time keeps
      // an injected clock exact and leaves no timers behind.
      ttlResolution: 0,
      dispose: (entry, key, reason) => {
        // 'set' (overwritten) and 'delete' (busted) are not evictions.
        if (reason === 'evict' || reason === 'expire') this.counts.evictions++;
        const identity = entry.header?.identity;
        if (identity !== undefined && this.latest.get(identity) === key) this.latest.delete(identity);
      },
    });
  }

  async get(key: string): Promise<CachedResponse | undefined> {
    const entry = this.read(key);
    return entry === undefined ? undefined : (JSON.parse(entry.json) as CachedResponse);
  }

  /** Like `get`, but the response is the stored one, deep-frozen (decision 0053): parsed once, not per hit. */
  async lookup(key: string): Promise<CacheLookup> {
    const entry = this.read(key);
    if (entry !== undefined) return entry.found;
    // 'stale': it was there, past its TTL (lru-cache has just dropped it).
    return this.readStatus.get === 'stale' ? EXPIRED : ABSENT;
  }

  /** The live entry under `key`, counted as a hit or a miss; `readStatus` says why it missed. */
  private read(key: string): Entry | undefined {
    requireKey('Cache key', key);
    // One status object per store, reset per read (`get` is synchronous): no allocation per hit.
    const status = this.readStatus;
    status.get = undefined;
    const entry = this.lru.get(key, { status });
    if (entry === undefined) this.counts.misses++;
    else this.counts.hits++;
    return entry;
  }

  async latestEntry(identity: string): Promise<CacheEntryHeader | undefined> {
    requireKey('Cache identity', identity);
    const key = this.latest.get(identity);
    // `peek`: no recency update, and nothing for an entry past its TTL.
    const header = key === undefined ? undefined : this.lru.peek(key)?.header;
    return header?.identity === identity ? header : undefined;
  }

  async set(key: string, value: CachedResponse, options?: CacheSetOptions): Promise<void> {
    requireKey('Cache key', key);
    requirePositiveInteger('Cache set ttlMs', options?.ttlMs);
    const copy = storedResponse(key, value);
    const json = JSON.stringify(copy);
    const header = storedHeader(key, options?.header);
    const bytes = Buffer.byteLength(json, 'utf8') + (header === undefined ? 0 : Buffer.byteLength(JSON.stringify(header), 'utf8'));
    const status: LRUCache.Status<string, Entry> = {};
    const found: CacheLookup = Object.freeze({ response: deepFreeze(copy) });
    this.lru.set(key, { json, found, header, bytes }, {
      status,
      ...(options?.ttlMs !== undefined ? { ttl: options.ttlMs } : {}),
    });
    this.counts.sets++;
    // Larger than maxBytes on its own: lru-cache drops it at once, an eviction for size.
    if (status.maxEntrySizeExceeded === true) this.counts.evictions++;
    // After `set`: overwriting the key disposed the old entry, and with it the old index entry.
    else if (header !== undefined) this.latest.set(header.identity, key);
  }

  async bust(key: string): Promise<boolean> {
    requireKey('Cache key', key);
    // `has` is false for an expired entry, which is already gone as far as callers can tell.
    if (!this.lru.has(key)) return false;
    this.lru.delete(key);
    this.counts.busts++;
    return true;
  }

  async bustPrefix(prefix: string): Promise<number> {
    requireKey('Cache bustPrefix prefix', prefix);
    // Copied first: deleting while lru-cache iterates would skip entries.
    const matching = [...this.lru.keys()].filter((key) => key.startsWith(prefix));
    for (const key of matching) this.lru.delete(key);
    this.counts.busts += matching.length;
    return matching.length;
  }

  metrics(): CacheMetrics {
    // Expired entries linger until touched; drop them so `size` is what a get could return.
    this.lru.purgeStale();
    return { ...this.counts, size: this.lru.size };
  }
}
