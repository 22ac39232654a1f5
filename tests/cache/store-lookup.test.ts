import { FileCacheStore } from '../../src/cache/file-store.js';
import { LruCacheStore } from '../../src/cache/lru-store.js';
import { describeLookupContract } from './store-lookup-contract.js';

describeLookupContract([
  ['LruCacheStore', (_dir, clock, ttlMs) => new LruCacheStore({ clock, ...(ttlMs ? { ttlMs } : {}) })],
  ['FileCacheStore', (dir, clock, ttlMs) => new FileCacheStore({ dir, clock, ...(ttlMs ? { ttlMs } : {}) })],
]);
