import { describe } from 'vitest';
import { describeCacheContract } from '../cache/store-contract.js';
import { describeLookupContract } from '../cache/store-lookup-contract.js';
import { probeRedis } from '../support/redis-service.js';
import { redisStores } from './redis-helpers.js';

const redis = await probeRedis();

// The contract every store keeps, on a real Redis: expiry is decided by the injected clock (Redis
// keeps the key a grace period longer), so the same fake-clock tests run here unchanged.
describe.skipIf(!redis.ok)('RedisCacheStore on Redis', () => {
  const stores = redisStores();
  describeCacheContract([['RedisCacheStore', ({ clock, ttlMs }) => stores.store({ clock, ...(ttlMs !== undefined ? { ttlMs } : {}) })]]);
  describeLookupContract([['RedisCacheStore', (_dir, clock, ttlMs) => stores.store({ clock, ...(ttlMs !== undefined ? { ttlMs } : {}) })]]);
});
