import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { bundleFixture } from '../support/bundle-fixture.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeRedis, REDIS_URL } from '../support/redis-service.js';
import { keysUnder, redisStores, uniquePrefix } from './redis-helpers.js';

const redis = await probeRedis();

// Bundled once (tests/support/bundle-fixture.ts): each child starts in about a second.
let bundle = '';

function runChild(prefix: string): { code: number | null; stdout: string; stderr: string } {
  const child = spawnSync(process.execPath, [bundle, REDIS_URL, prefix], { encoding: 'utf8', timeout: 60_000 });
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}

function line(stdout: string, label: string): string | undefined {
  return new RegExp(`^${label} (.*)$`, 'm').exec(stdout)?.[1];
}

describe.skipIf(!redis.ok)('RedisCacheStore across processes', () => {
  const { client } = redisStores();
  const prefixes: string[] = [];

  beforeAll(async () => {
    const bundled = await bundleFixture(join(import.meta.dirname, 'fixtures', 'cache-run.ts'), 'redis-cache-run');
    bundle = bundled.file;
    return bundled.remove;
  });

  afterAll(async () => {
    if (client.status !== 'ready') await client.connect().catch(() => undefined);
    for (const prefix of prefixes) {
      const keys = await keysUnder(client, prefix);
      if (keys.length > 0) await client.unlink(...keys);
    }
  });

  it('a second process is served from the first one\'s cache and makes no model request', async () => {
    const prefix = uniquePrefix('proc');
    prefixes.push(prefix);
    const first = runChild(prefix);
    expect(first.code, first.stderr).toBe(0);
    expect(line(first.stdout, 'RESULT')).toBe('0,1,2,3,4');
    expect(line(first.stdout, 'REQUESTS')).toBe('5');
    expect(line(first.stdout, 'CACHE')).toBe('cacheMiss,cacheMiss,cacheMiss,cacheMiss,cacheMiss');

    const second = runChild(prefix);
    expect(second.code, second.stderr).toBe(0);
    expect(line(second.stdout, 'RESULT')).toBe('0,1,2,3,4');
    expect(line(second.stdout, 'REQUESTS')).toBe('0');
    expect(line(second.stdout, 'CACHE')).toBe('cacheHit,cacheHit,cacheHit,cacheHit,cacheHit');
    // Five entries under the prefix, shared by both processes.
    if (client.status !== 'ready') await client.connect();
    expect((await keysUnder(client, `${prefix}e|`)).length).toBe(5);
  }, 120_000);
});
