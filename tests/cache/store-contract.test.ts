import { FileCacheStore } from '../../src/cache/file-store.js';
import { LruCacheStore } from '../../src/cache/lru-store.js';
import { describeCacheContract } from './store-contract.js';

describeCacheContract([
  ['LruCacheStore', ({ clock, ttlMs }) => new LruCacheStore({ clock, ttlMs })],
  ['FileCacheStore', ({ dir, clock, ttlMs }) => new FileCacheStore({ dir, clock, ttlMs })],
]);
