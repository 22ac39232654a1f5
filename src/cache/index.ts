// `groundswell/cache`: the stores behind `enableCache` and the key utilities. Agents
// cache without importing it (`enableCache: true` uses an in-memory store); import it to pick a
// store, write one, or compute keys. The options and miss reasons an agent or an event names
// (`CacheSetting`, `CacheMissReason`, ...) are in the root.
export type { Cache, CachedResponse, CacheLookup, CacheMetrics, CacheSetOptions } from './cache.js';
export { LruCacheStore } from './lru-store.js';
export type { LruCacheStoreOptions } from './lru-store.js';
export { FileCacheStore } from './file-store.js';
export type { FileCacheStoreOptions } from './file-store.js';
export { CacheStoreError } from './cache-store-error.js';
export { cacheIdentity } from './cache-entry-header.js';
export type { CacheEntryHeader } from './cache-entry-header.js';
export { CACHE_KEY_PARTS, IGNORABLE_CACHE_KEY_PARTS } from './cache-key-parts.js';
export type { CacheKeyPartHashes } from './cache-key-parts.js';
export { cacheKey, cacheKeyPartHashes, cacheKeyPrefix } from './cache-key.js';
export type { CacheKeyInput, SystemSections } from './cache-key.js';
export { schemaHash } from './schema-hash.js';

// This entry may load zod: cacheKey() is synchronous, and a schema's metadata counts in its hash.
import * as zod from 'zod';
import { provideZod } from '../util/load-zod.js';
provideZod(zod);
