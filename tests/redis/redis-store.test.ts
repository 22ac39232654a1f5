import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { UsageError } from 'groundswell';
import { RedisCacheStore } from '../../src/redis/redis-store.js';
import type { RedisClientLike } from '../../src/redis/redis-client-like.js';
import { response } from '../cache/store-helpers.js';
import { probeRedis } from '../support/redis-service.js';
import { keysUnder, redisStores, uniquePrefix } from './redis-helpers.js';

const redis = await probeRedis();

/** The injected client, with every command it is asked to run written down. */
function recording(client: Redis): { client: RedisClientLike; commands: string[] } {
  const commands: string[] = [];
  const wrapped = new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'call') {
        return (command: string, ...args: Array<string | number>) => {
          commands.push(command.toUpperCase());
          return target.call(command, ...args);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { client: wrapped as unknown as RedisClientLike, commands };
}

describe('RedisCacheStore options', () => {
  it('needs exactly one of client and url, and checks its numbers', () => {
    expect(() => new RedisCacheStore({})).toThrow(UsageError);
    expect(() => new RedisCacheStore({ url: 'redis://x', client: {} as RedisClientLike })).toThrow(/one of `client`/);
    expect(() => new RedisCacheStore({ url: '' })).toThrow(/non-empty/);
    expect(() => new RedisCacheStore({ url: 'redis://x', ttlMs: 0 })).toThrow(/ttlMs must be a positive whole number/);
    expect(() => new RedisCacheStore({ url: 'redis://x', timeoutMs: 1.5 })).toThrow(/timeoutMs/);
    expect(() => new RedisCacheStore({ url: 'redis://x', expiryGraceMs: -1 })).toThrow(/expiryGraceMs/);
    expect(new RedisCacheStore({ url: 'redis://x', expiryGraceMs: 0 }).prefix).toBe('groundswell:cache:');
  });
});

describe.skipIf(!redis.ok)('RedisCacheStore on Redis', () => {
  const stores = redisStores();

  it('lets Redis expire the key: PX is the ttl plus the grace, and no read is needed to free it', async () => {
    const store = stores.store({ ttlMs: 150, expiryGraceMs: 50 });
    await store.set('gs:t', response('t'));
    await store.set('gs:forever', response('f'), { ttlMs: undefined });
    const ttl = await stores.client.pttl(`${store.prefix}e|gs:t`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(200);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await stores.client.exists(`${store.prefix}e|gs:t`)).toBe(0);
    const forever = stores.store({ prefix: store.prefix });
    await forever.set('gs:never', response('n'));
    expect(await stores.client.pttl(`${store.prefix}e|gs:never`)).toBe(-1);
  });

  it('busts a prefix with SCAN in batches (never KEYS), across more keys than one batch', async () => {
    const { client, commands } = recording(stores.client);
    const store = stores.store({ client });
    for (let i = 0; i < 1200; i += 1) await store.set(`researcher:${i}`, response(i));
    await store.set('writer:1', response('w'));
    commands.length = 0;
    expect(await store.bustPrefix('researcher:')).toBe(1200);
    expect(commands).not.toContain('KEYS');
    expect(commands.filter((command) => command === 'SCAN').length).toBeGreaterThan(1);
    expect(await keysUnder(stores.client, `${store.prefix}e|`)).toEqual([`${store.prefix}e|writer:1`]);
    expect(store.metrics()).toMatchObject({ busts: 1200, size: 1 });
  }, 30_000);

  it('treats glob characters in its prefix and in a bust prefix as plain characters', async () => {
    const hostile = `${uniquePrefix('glob')}*?[a-z]\\:`;
    const store = stores.store({ prefix: hostile });
    // Keys a pattern built without escaping would also match.
    const neighbour = stores.store({ prefix: hostile.replace('*?[a-z]\\', 'xyb') });
    await neighbour.set('a:1', response('neighbour'));
    for (const key of ['a*:1', 'a?:1', 'a[1]:1', 'ab:1', 'a\\:1', 'a:1']) await store.set(key, response(key));
    expect(await store.bustPrefix('a*')).toBe(1);
    expect(await store.bustPrefix('a?')).toBe(1);
    expect(await store.bustPrefix('a[')).toBe(1);
    expect(await store.bustPrefix('a\\')).toBe(1);
    expect((await store.get('ab:1'))?.value).toBe('ab:1');
    expect(await store.bustPrefix('')).toBe(2);
    expect((await neighbour.get('a:1'))?.value).toBe('neighbour');
  });

  it('stores whose prefixes nest (p: and p:e:sub:) never read, overwrite or bust each other\'s entries', async () => {
    const outer = stores.store();
    const inner = stores.store({ prefix: `${outer.prefix}e:sub:` });
    await inner.set('k', response('inner'));
    await inner.set('i:x', response('inner-index-like'));
    // Under an `<prefix>e:<key>` layout this key of the outer store is the inner store's `k`.
    await outer.set('sub:e:k', response('outer'));
    expect((await inner.get('k'))?.value).toBe('inner');
    expect(await outer.bustPrefix('')).toBe(1);
    expect((await inner.get('k'))?.value).toBe('inner');
    expect((await inner.get('i:x'))?.value).toBe('inner-index-like');
    await outer.set('sub:e:k', response('outer'));
    expect(await inner.bustPrefix('')).toBe(2);
    expect((await outer.get('sub:e:k'))?.value).toBe('outer');
  });

  it('refuses a prefix with the character that ends every prefix in its keys', () => {
    expect(() => stores.store({ prefix: 'app|cache:' })).toThrow(/must not contain "\|"/);
  });

  it('sends its scripts by hash after the first write, and survives a SCRIPT FLUSH in between', async () => {
    const { client, commands } = recording(stores.client);
    const store = stores.store({ client });
    await store.set('gs:1', response(1));
    commands.length = 0;
    await store.set('gs:2', response(2));
    await store.set('gs:3', response(3));
    expect(commands).toEqual(['EVALSHA', 'EVALSHA']);
    await stores.client.call('SCRIPT', 'FLUSH');
    commands.length = 0;
    await store.set('gs:4', response(4));
    await store.set('gs:5', response(5));
    // NOSCRIPT, the script sent once more, then by hash again.
    expect(commands).toEqual(['EVALSHA', 'EVAL', 'EVALSHA']);
    expect((await store.get('gs:4'))?.value).toBe(4);
    expect(await store.bust('gs:5')).toBe(true);
    expect(await store.bustPrefix('gs:')).toBe(4);
  });

  it('round-trips hostile values: control characters, lone surrogates, every byte value, and a 16 MB entry', async () => {
    const store = stores.store();
    const bytes = Array.from({ length: 256 }, (_x, i) => String.fromCharCode(i)).join('');
    const value = { bytes, nul: 'a\u0000b', lone: '\ud800 and \udfff', emoji: '👩‍💻', crlf: '\r\n', json: '{"x":1}\\' };
    await store.set('gs:hostile\u0000key*', response(value));
    expect((await store.get('gs:hostile\u0000key*'))?.value).toEqual(value);
    const huge = 'x'.repeat(16 * 1024 * 1024);
    await store.set('gs:huge', response({ huge }));
    expect(((await store.get('gs:huge'))?.value as { huge: string }).huge.length).toBe(huge.length);
    expect(await store.bust('gs:huge')).toBe(true);
  }, 30_000);

  it('an entry another program wrote in its place (not ours, or another type) is a damaged miss or absent, never a crash', async () => {
    const store = stores.store();
    await stores.client.set(`${store.prefix}e|gs:junk`, 'not json');
    expect(await store.lookup('gs:junk')).toEqual({ response: undefined, reason: 'damaged' });
    expect(await stores.client.exists(`${store.prefix}e|gs:junk`)).toBe(0);
    await stores.client.hset(`${store.prefix}e|gs:hash`, 'field', 'value');
    expect(await store.lookup('gs:hash')).toEqual({ response: undefined, reason: 'absent' });
    await store.set('gs:ok', response('ok'));
    expect(await store.bustPrefix('gs:')).toBe(1);
  });

  it('two stores on one Redis share entries: what one sets, the other hits; a bust in one is a miss in the other', async () => {
    const one = stores.store();
    const two = stores.store({ prefix: one.prefix });
    await one.set('gs:shared', response('shared'));
    expect((await two.get('gs:shared'))?.value).toBe('shared');
    expect(await two.bust('gs:shared')).toBe(true);
    expect(await one.lookup('gs:shared')).toEqual({ response: undefined, reason: 'absent' });
  });

  it('a store with a url opens its own connection and closes it', async () => {
    const store = stores.store({ url: process.env.GROUNDSWELL_REDIS_URL ?? 'redis://127.0.0.1:6379' });
    await store.set('gs:own', response('own'));
    expect((await store.get('gs:own'))?.value).toBe('own');
    await store.close();
    await expect(store.get('gs:own')).rejects.toThrow(/closed/);
  });

  it('commands that arrive while its connection is still opening wait for it instead of failing', async () => {
    // Agent calls that start together (a fan-out) all reach a fresh store before it has connected.
    const store = stores.store({ url: process.env.GROUNDSWELL_REDIS_URL ?? 'redis://127.0.0.1:6379' });
    try {
      const reads = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => store.get(`gs:first-${i}`)));
      expect(reads.filter((read) => read.status === 'rejected')).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
