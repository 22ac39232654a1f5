import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeRedis, REDIS_URL } from '../support/redis-service.js';
import { keysUnder, redisStores, uniquePrefix } from './redis-helpers.js';

const redis = await probeRedis();

const ROOT = join(import.meta.dirname, '..', '..');
// Bundled once (under the repository, so its packages resolve): each child starts in about a second.
const BUNDLE = join(ROOT, '.tmp', `redis-cache-run-${process.pid}.mjs`);

function runChild(prefix: string): { code: number | null; stdout: string; stderr: string } {
  const child = spawnSync(process.execPath, [BUNDLE, REDIS_URL, prefix], { encoding: 'utf8', timeout: 60_000 });
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}

function line(stdout: string, label: string): string | undefined {
  return new RegExp(`^${label} (.*)$`, 'm').exec(stdout)?.[1];
}

describe.skipIf(!redis.ok)('RedisCacheStore across processes', () => {
  const { client } = redisStores();
  const prefixes: string[] = [];

  beforeAll(async () => {
    await build({
      entryPoints: [join(import.meta.dirname, 'fixtures', 'cache-run.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: BUNDLE,
      packages: 'external',
      alias: {
        groundswell: join(ROOT, 'src/index.ts'),
        'groundswell/redis': join(ROOT, 'src/redis/index.ts'),
        'groundswell/testing': join(ROOT, 'src/testing/index.ts'),
      },
      logLevel: 'error',
    });
    return () => rmSync(BUNDLE, { force: true });
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
    expect((await keysUnder(client, `${prefix}e:`)).length).toBe(5);
  }, 120_000);
});
