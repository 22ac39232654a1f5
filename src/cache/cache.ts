/** What the agent stores per prompt: the validated value and what it cost to get it. */
export interface CachedResponse {
  /** The structured value, as JSON data (it is validated again on every hit). */
  value: unknown;
  model: string;
  stopReason: string | null;
  usage: { inputTokens: number; outputTokens: number; cacheCreationInputTokens: number; cacheReadInputTokens: number };
  /** Epoch ms when it was stored. */
  storedAt: number;
}

export interface CacheSetOptions {
  /** Time to live for this entry, overriding the store's default. */
  ttlMs?: number;
}

export interface CacheMetrics {
  hits: number;
  misses: number;
  sets: number;
  busts: number;
  /** Entries dropped for size or age. */
  evictions: number;
  /** Entries held now. */
  size: number;
}

/** A pluggable response store. Every method is async so stores on disk or a network fit. */
export interface Cache {
  get(key: string): Promise<CachedResponse | undefined>;
  set(key: string, value: CachedResponse, options?: CacheSetOptions): Promise<void>;
  /** True when an entry was removed. */
  bust(key: string): Promise<boolean>;
  /** Removes every entry whose key starts with `prefix`; returns how many. */
  bustPrefix(prefix: string): Promise<number>;
  metrics(): CacheMetrics;
}
