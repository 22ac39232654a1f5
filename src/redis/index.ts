// `groundswell/redis`: a cache store on Redis, so processes and workers share answers.
// A separate entry so `ioredis` (an optional peer) is needed only by those who use it; a store
// given a `url` loads it on first use. The `Cache` contract and `CacheStoreError` are `groundswell/cache`.
export { RedisCacheStore } from './redis-store.js';
export type { RedisCacheStoreOptions } from './redis-store-options.js';
export type { RedisClientLike } from './redis-client-like.js';
