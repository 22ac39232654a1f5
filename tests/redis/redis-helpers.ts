import { Redis } from 'ioredis';
import { afterAll, afterEach } from 'vitest';
import { RedisCacheStore } from '../../src/redis/redis-store.js';
import type { RedisCacheStoreOptions } from '../../src/redis/redis-store-options.js';
import { REDIS_URL } from '../support/redis-service.js';

let made = 0;

/** A key prefix no other test (or test process) uses. */
export function uniquePrefix(label = 't'): string {
  made += 1;
  return `gs-test:${process.pid}:${label}${made}:`;
}

/** Every key under `prefix`, by SCAN (a test's view of what the store left in Redis). */
export async function keysUnder(client: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await client.scan(cursor, 'MATCH', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

/**
 * Stores for the tests of one file: each on its own prefix, over one shared client (or their own
 * connection with `url`); after each test the stores close and their keys are removed.
 */
export function redisStores(): { client: Redis; store(options?: Partial<RedisCacheStoreOptions>): RedisCacheStore } {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  const open: RedisCacheStore[] = [];
  afterEach(async () => {
    const stores = open.splice(0);
    for (const store of stores) {
      await store.close();
      if (client.status === 'ready') {
        const keys = await keysUnder(client, store.prefix);
        if (keys.length > 0) await client.unlink(...keys);
      }
    }
  });
  afterAll(() => {
    client.disconnect();
  });
  return {
    client,
    store(options = {}) {
      const store = new RedisCacheStore({ prefix: uniquePrefix(), ...(options.url === undefined ? { client } : {}), ...options } as RedisCacheStoreOptions);
      open.push(store);
      return store;
    },
  };
}
