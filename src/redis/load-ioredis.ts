import { CacheStoreError } from '../cache/cache-store-error.js';
import type { RedisClientLike } from './redis-client-like.js';
import { isMissingModule } from '../util/missing-module.js';

interface IoredisModule {
  Redis: new (url: string, options: Record<string, unknown>) => RedisClientLike & {
    on(event: 'error', listener: (error: unknown) => void): unknown;
  };
}

/**
 * Loads `ioredis` when a store given a `url` first talks to Redis, so `groundswell/redis` loads
 * (and type-checks) without it; `ioredis` is an optional peer dependency.
 */
export async function loadIoredis(): Promise<IoredisModule> {
  let loaded: unknown;
  try {
    loaded = await import('ioredis');
  } catch (error) {
    if (isMissingModule(error)) {
      throw new CacheStoreError('RedisCacheStore with a `url` needs the `ioredis` package, which is not installed: run `npm install ioredis`.', {
        cause: error,
      });
    }
    throw error;
  }
  // ESM import of a CommonJS module: the class is `Redis` (and `default`); a CommonJS require gives the module.
  const module = loaded as { Redis?: unknown; default?: { Redis?: unknown } };
  const Redis = module.Redis ?? module.default?.Redis;
  if (typeof Redis !== 'function') throw new CacheStoreError('The installed `ioredis` package has no Redis class; install ioredis 5 or 6.');
  return { Redis: Redis as IoredisModule['Redis'] };
}
