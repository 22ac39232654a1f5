import { LRUCache } from 'lru-cache';
import type { Cache, CachedResponse, CacheMetrics, CacheSetOptions } from './cache.js';
import { requireKey, requirePositiveInteger, storedResponse } from './store-input.js';

export interface LruCacheStoreOptions {
  /** Most entries held; the least recently used goes first (default 1000). */
  maxEntries?: number;
  /** Most bytes held, counted as the UTF-8 length of each entry's JSON. */
  maxBytes?: number;
  /** Default time to live; entries without one never expire. */
  ttlMs?: number;
  /**
   * Time source for TTLs (default `performance`); inject one to test expiry without waiting.
   * Readings must be above 0: lru-cache takes a start time of 0 to mean "no TTL".
   */
  clock?: { now(): number };
}

/** The default store: in memory, bounded by count and bytes, with TTLs and metrics. */
export class LruCacheStore implements Cache {
  private readonly lru: LRUCache<string, string>;
  private readonly counts = { hits: 0, misses: 0, sets: 0, busts: 0, evictions: 0 };

  constructor(options: LruCacheStoreOptions = {}) {
    requirePositiveInteger('LruCacheStore maxEntries', options.maxEntries);
    requirePositiveInteger('LruCacheStore maxBytes', options.maxBytes);
    requirePositiveInteger('LruCacheStore ttlMs', options.ttlMs);
    this.lru = new LRUCache<string, string>({
      max: options.maxEntries ?? 1000,
      ...(options.maxBytes !== undefined
        ? { maxSize: options.maxBytes, sizeCalculation: (json: string) => Buffer.byteLength(json, 'utf8') }
        : {}),
      ...(options.ttlMs !== undefined ? { ttl: options.ttlMs } : {}),
      ...(options.clock !== undefined ? { perf: options.clock } : {}),
      // lru-cache otherwise reuses one clock reading for 1ms via a timer; reading every time keeps
      // an injected clock exact and leaves no timers behind.
      ttlResolution: 0,
      dispose: (_value, _key, reason) => {
        // 'set' (overwritten) and 'delete' (busted) are not evictions.
        if (reason === 'evict' || reason === 'expire') this.counts.evictions++;
      },
    });
  }

  async get(key: string): Promise<CachedResponse | undefined> {
    requireKey('Cache key', key);
    const json = this.lru.get(key);
    if (json === undefined) {
      this.counts.misses++;
      return undefined;
    }
    this.counts.hits++;
    return JSON.parse(json) as CachedResponse;
  }

  async set(key: string, value: CachedResponse, options?: CacheSetOptions): Promise<void> {
    requireKey('Cache key', key);
    requirePositiveInteger('Cache set ttlMs', options?.ttlMs);
    const json = JSON.stringify(storedResponse(key, value));
    const status: LRUCache.Status<string, string> = {};
    this.lru.set(key, json, {
      status,
      ...(options?.ttlMs !== undefined ? { ttl: options.ttlMs } : {}),
    });
    this.counts.sets++;
    // Larger than maxBytes on its own: lru-cache drops it at once, an eviction for size.
    if (status.maxEntrySizeExceeded === true) this.counts.evictions++;
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
