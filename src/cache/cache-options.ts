import type { CacheKeyPart } from '../types/cache.js';
import type { IgnorableCacheKeyPart } from './cache-key-parts.js';

/** `enableCache: { ... }` (on an agent, a prompt or a call): caching on, with these options. */
export interface CacheOptions {
  /**
   * Key parts left out of the key, for parts that change by design while the answer should not,
   * e.g. `['ancestry']` when signing off plan goals moves the goal in every system prompt. The
   * risk is yours: a hit may then serve an answer produced under another ancestry (or plan, model,
   * ...). `user` and `data` cannot be ignored. Keys made with an ignore list never match keys made
   * without one, so turning it on costs one miss per prompt.
   */
  ignore?: readonly IgnorableCacheKeyPart[];
  /** Do not read the cache for this call: ask the model, and store the fresh answer (a `bypassed` miss). */
  refresh?: boolean;
}

/** `enableCache`: true, false, or options (which mean on). */
export type CacheSetting = boolean | CacheOptions;

/** A setting as the cache interceptor uses it. */
export interface ResolvedCacheOptions {
  readonly enabled: boolean;
  readonly ignore: ReadonlySet<CacheKeyPart>;
  readonly refresh: boolean;
}

const NOTHING_IGNORED: ReadonlySet<CacheKeyPart> = new Set();
const ON: ResolvedCacheOptions = Object.freeze({ enabled: true, ignore: NOTHING_IGNORED, refresh: false });
const OFF: ResolvedCacheOptions = Object.freeze({ enabled: false, ignore: NOTHING_IGNORED, refresh: false });

/** The options of a (validated) setting; `true` allocates nothing, as it is on every cached call. */
export function cacheOptions(setting: CacheSetting | undefined): ResolvedCacheOptions {
  if (setting === undefined || setting === false) return OFF;
  if (setting === true) return ON;
  const ignore = setting.ignore === undefined || setting.ignore.length === 0 ? NOTHING_IGNORED : new Set<CacheKeyPart>(setting.ignore);
  return { enabled: true, ignore, refresh: setting.refresh === true };
}
