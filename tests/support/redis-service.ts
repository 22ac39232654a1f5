import { Redis } from 'ioredis';
import type { ServiceProbe } from './postgres-service.js';

/** How the tests reach Redis: GROUNDSWELL_REDIS_URL, else the local server of .ci/run. */
export const REDIS_URL = process.env.GROUNDSWELL_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Whether a Redis server answers. Where none does, the tests that need it skip and say why; with
 * GROUNDSWELL_REQUIRE_SERVICES=1 (set by .ci/run) a missing server fails the run instead.
 */
export async function probeRedis(): Promise<ServiceProbe> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  let cause: unknown;
  client.on('error', (error) => {
    cause ??= error;
  });
  try {
    await client.connect();
    await client.ping();
    return { ok: true, reason: '' };
  } catch (thrown) {
    // ioredis rejects with "Connection is closed."; the 'error' event says why.
    const error = cause ?? thrown;
    const reason = `Redis is not reachable at ${REDIS_URL} (${error instanceof Error ? error.message : String(error)}); set GROUNDSWELL_REDIS_URL or start it (see .ci/run)`;
    if (process.env.GROUNDSWELL_REQUIRE_SERVICES === '1') throw new Error(`${reason}, and GROUNDSWELL_REQUIRE_SERVICES=1 requires it.`, { cause: error });
    console.warn(`skipping Redis tests: ${reason}`);
    return { ok: false, reason };
  } finally {
    client.disconnect();
  }
}
