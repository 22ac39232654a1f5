import type { CacheEntryHeader } from './cache-entry-header.js';

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
  /**
   * What the entry says about itself (agent, prompt, model, key part fingerprints), kept with it
   * so a later miss can name the parts that changed. Hashes and names only, never request text.
   */
  header?: CacheEntryHeader;
}

/** What `lookup` found: the response, or why there was none under the key. */
export type CacheLookup =
  | { readonly response: CachedResponse; readonly reason?: undefined }
  | {
      readonly response: undefined;
      /** No entry; one whose time to live was up; or one the store could not read (both removed). */
      readonly reason: 'absent' | 'expired' | 'damaged';
    };

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
  /**
   * Optional: `get` that also says why it missed. Counted like `get`. The agent uses it when a
   * store has it; without it every miss is reported as `absent`. The response may be read-only
   * (deep-frozen, shared by every lookup: the in-memory store's hit then costs no parse); the
   * agent only reads it. `get` is the one that hands out a copy the caller may change.
   */
  lookup?(key: string): Promise<CacheLookup>;
  /**
   * Optional: the header of the newest live entry stored with `identity` (`header.identity`), or
   * undefined. A peek for diagnostics: not counted as a hit or miss. The agent calls it on a miss
   * to report which key parts differ from that entry.
   */
  latestEntry?(identity: string): Promise<CacheEntryHeader | undefined>;
}
