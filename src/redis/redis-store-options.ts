import type { RedisClientLike } from './redis-client-like.js';

export interface RedisCacheStoreOptions {
  /**
   * An ioredis client the caller owns (`close()` leaves it open; give it an 'error' listener).
   * One of `client` and `url`.
   */
  client?: RedisClientLike;
  /**
   * A Redis URL (`redis://127.0.0.1:6379/0`, `rediss://` for TLS): the store loads `ioredis`,
   * connects on first use with fail-fast settings, and closes the connection on `close()`.
   */
  url?: string;
  /**
   * Start of every Redis key the store writes (default `groundswell:cache:`). Stores with another
   * prefix never see these entries, even when one prefix starts with the other, so one Redis can
   * hold several caches. It may not contain `|`, which ends the prefix in every key.
   */
  prefix?: string;
  /** Default time to live; entries without one never expire. */
  ttlMs?: number;
  /**
   * How much longer than its time to live Redis keeps an entry (default 60 000 ms). The store
   * decides expiry by `clock`, so a read just after it reports `expired` rather than `absent`;
   * Redis then frees the key by itself even if nobody reads it again.
   */
  expiryGraceMs?: number;
  /** Time source for TTLs (default `Date`: expiry times are epoch ms, valid across processes). */
  clock?: { now(): number };
  /**
   * Longest wait for Redis per operation, connecting included (default 1000 ms); beyond it the
   * operation fails with a `CacheStoreError`, which an agent reports and treats as a miss.
   */
  timeoutMs?: number;
  /**
   * After Redis failed to answer in time or the connection failed, how long the store skips it
   * (default 5000 ms; 0 never skips): operations fail at once as `unavailable` misses instead of
   * each waiting `timeoutMs`, then the first one after the window tries Redis again. Measured by
   * `clock`.
   */
  backoffMs?: number;
}
