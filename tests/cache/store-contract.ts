import { describe, expect, it } from 'vitest';
import { UsageError } from 'groundswell';
import type { Cache } from '../../src/cache/cache.js';
import { cacheKeyPrefix } from '../../src/cache/cache-key.js';
import { FakeClock } from '../support/fake-clock.js';
import { response, tempDirs } from './store-helpers.js';

export interface StoreSetup {
  dir: string;
  clock: FakeClock;
  ttlMs?: number;
}

/** A named way to make a fresh, empty store for one test. */
export type StoreFactory = [name: string, create: (setup: StoreSetup) => Cache];

/** The behaviour every `Cache` store shares; each store's test file runs it on its own factories. */
export function describeCacheContract(factories: StoreFactory[]): void {
  describe.each(factories)('%s (Cache contract)', (_name, create) => {
    const newDir = tempDirs();

    async function fresh(options: { ttlMs?: number } = {}): Promise<{ store: Cache; clock: FakeClock }> {
      const clock = new FakeClock();
      return { store: create({ dir: await newDir(), clock, ...options }), clock };
    }

    it('misses an unknown key, hits after set, and overwrite replaces the value', async () => {
      const { store } = await fresh();
      expect(await store.get('gs:a')).toBeUndefined();
      await store.set('gs:a', response({ answer: 1 }));
      expect(await store.get('gs:a')).toEqual(response({ answer: 1 }));
      await store.set('gs:a', response({ answer: 2 }, 2));
      expect(await store.get('gs:a')).toEqual(response({ answer: 2 }, 2));
      expect(await store.get('gs:b')).toBeUndefined();
    });

    it('stores a JSON copy: nested data round-trips, and neither side can mutate the other', async () => {
      const { store } = await fresh();
      const value = { text: 'naïve ☃ "quoted"\n', list: [1, 2.5, null, true, { deep: ['x'] }], empty: {} };
      const original = response(value);
      await store.set('gs:json', original);
      value.list.push(99);
      const first = await store.get('gs:json');
      expect(first).toEqual(response({ text: 'naïve ☃ "quoted"\n', list: [1, 2.5, null, true, { deep: ['x'] }], empty: {} }));
      expect(first).not.toBe(original);
      (first?.value as { text: string }).text = 'changed';
      expect(((await store.get('gs:json'))?.value as { text: string }).text).toBe('naïve ☃ "quoted"\n');
    });

    it('refuses a response that is not JSON data, storing nothing', async () => {
      const { store } = await fresh();
      await expect(store.set('gs:bad', response({ big: 1n }))).rejects.toBeInstanceOf(UsageError);
      expect(await store.get('gs:bad')).toBeUndefined();
      expect(store.metrics()).toMatchObject({ sets: 0, size: 0 });
    });

    it('bust removes one entry and reports whether there was one', async () => {
      const { store } = await fresh();
      await store.set('gs:a', response('a'));
      await store.set('gs:b', response('b'));
      expect(await store.bust('gs:a')).toBe(true);
      expect(await store.bust('gs:a')).toBe(false);
      expect(await store.bust('gs:never')).toBe(false);
      expect(await store.get('gs:a')).toBeUndefined();
      expect((await store.get('gs:b'))?.value).toBe('b');
    });

    it('bustPrefix removes exactly the keys starting with the prefix', async () => {
      const { store } = await fresh();
      await store.set('researcher:1', response(1));
      await store.set('researcher:2', response(2));
      await store.set('researcher-two:1', response(3));
      await store.set('writer:1', response(4));
      expect(await store.bustPrefix(cacheKeyPrefix('researcher'))).toBe(2);
      expect(await store.get('researcher:1')).toBeUndefined();
      expect(await store.get('researcher:2')).toBeUndefined();
      expect((await store.get('researcher-two:1'))?.value).toBe(3);
      expect((await store.get('writer:1'))?.value).toBe(4);
      expect(await store.bustPrefix('nobody:')).toBe(0);
      expect(store.metrics()).toMatchObject({ busts: 2, size: 2 });
    });

    it('expires entries after the default ttl, by the injected clock', async () => {
      const { store, clock } = await fresh({ ttlMs: 1000 });
      await store.set('gs:t', response('t'));
      clock.advance(1000);
      expect((await store.get('gs:t'))?.value).toBe('t');
      clock.advance(1);
      expect(await store.get('gs:t')).toBeUndefined();
      expect(store.metrics()).toMatchObject({ hits: 1, misses: 1, evictions: 1, size: 0 });
    });

    it('a per-entry ttl overrides the default, and entries without any ttl never expire', async () => {
      const { store, clock } = await fresh();
      await store.set('gs:short', response('short'), { ttlMs: 50 });
      await store.set('gs:forever', response('forever'));
      clock.advance(51);
      expect(await store.get('gs:short')).toBeUndefined();
      clock.advance(10_000_000);
      expect((await store.get('gs:forever'))?.value).toBe('forever');
    });

    it('an expired entry cannot be busted, and is gone from size', async () => {
      const { store, clock } = await fresh({ ttlMs: 10 });
      await store.set('gs:old', response('old'));
      await store.set('gs:older', response('older'));
      clock.advance(11);
      expect(await store.bust('gs:old')).toBe(false);
      expect(await store.bustPrefix('gs:')).toBe(0);
      expect(store.metrics()).toMatchObject({ busts: 0, evictions: 2, size: 0 });
    });

    it('rejects a ttl that is not a positive whole number', async () => {
      const { store } = await fresh();
      for (const ttlMs of [0, -5, 1.5, Number.NaN]) {
        await expect(store.set('gs:x', response('x'), { ttlMs })).rejects.toBeInstanceOf(UsageError);
      }
    });

    it('counts hits, misses, sets, busts, evictions and size', async () => {
      const { store, clock } = await fresh();
      expect(store.metrics()).toEqual({ hits: 0, misses: 0, sets: 0, busts: 0, evictions: 0, size: 0 });
      await store.set('gs:a', response('a'));
      await store.set('gs:a', response('a2'));
      await store.set('gs:b', response('b'), { ttlMs: 5 });
      await store.set('gs:c', response('c'));
      await store.get('gs:a');
      await store.get('gs:a');
      await store.get('gs:zzz');
      await store.bust('gs:c');
      clock.advance(6);
      await store.get('gs:b');
      expect(store.metrics()).toEqual({ hits: 2, misses: 2, sets: 4, busts: 1, evictions: 1, size: 1 });
    });

    it.each([
      ['a number', 123],
      ['undefined', undefined],
      ['null', null],
      ['an object', { key: 'gs:a' }],
      ['a symbol', Symbol('gs:a')],
    ])('refuses a key that is %s with a UsageError, in every method', async (_label, key) => {
      const { store } = await fresh();
      const bad = key as unknown as string;
      await expect(store.get(bad)).rejects.toThrow(/Cache key must be a string/);
      await expect(store.set(bad, response('x'))).rejects.toBeInstanceOf(UsageError);
      await expect(store.bust(bad)).rejects.toBeInstanceOf(UsageError);
      await expect(store.bustPrefix(bad)).rejects.toThrow(/bustPrefix prefix must be a string/);
      expect(store.metrics()).toMatchObject({ hits: 0, misses: 0, sets: 0, size: 0 });
    });

    it.each([
      ['1e400 (Infinity)', 1e400, /`storedAt` is Infinity/],
      ['-Infinity', Number.NEGATIVE_INFINITY, /`storedAt` is -Infinity/],
      ['NaN', Number.NaN, /`storedAt` is NaN/],
      ['negative', -1, /`storedAt` must be a finite, non-negative number/],
      ['a string', '2024-01-01', /`storedAt` must be a finite, non-negative number/],
    ])('refuses storedAt %s with a UsageError naming the field, storing nothing', async (_label, storedAt, message) => {
      const { store } = await fresh();
      const bad = { ...response('x'), storedAt: storedAt as number };
      const error = await store.set('gs:t', bad).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(message);
      expect(await store.get('gs:t')).toBeUndefined();
      expect(store.metrics()).toMatchObject({ sets: 0, size: 0 });
    });

    it('refuses a response of the wrong shape (usage, model) or with a non-finite number anywhere', async () => {
      const { store } = await fresh();
      const cases: Array<[unknown, RegExp]> = [
        [{ ...response('x'), usage: { ...response('x').usage, outputTokens: Number.POSITIVE_INFINITY } }, /`outputTokens` is Infinity/],
        [{ ...response('x'), usage: { ...response('x').usage, inputTokens: -3 } }, /`usage.inputTokens` must be a finite, non-negative number/],
        [{ ...response('x'), model: 42 }, /`model` must be a string/],
        [{ ...response('x'), stopReason: 7 }, /`stopReason` must be a string or null/],
        [{ ...response('x'), value: undefined }, /`value` is missing/],
        [{ ...response({ score: Number.NaN }) }, /`score` is NaN/],
        ['not an object', /the response is not an object/],
      ];
      for (const [value, message] of cases) {
        await expect(store.set('gs:shape', value as never)).rejects.toThrow(message);
      }
      expect(await store.get('gs:shape')).toBeUndefined();
      expect(store.metrics()).toMatchObject({ sets: 0, size: 0 });
    });

    it('refuses a response that cannot be read at all (a revoked proxy) with a UsageError', async () => {
      const { store } = await fresh();
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      await expect(store.set('gs:proxy', proxy as never)).rejects.toBeInstanceOf(UsageError);
      await expect(store.set('gs:proxy', response(proxy))).rejects.toBeInstanceOf(UsageError);
      expect(await store.get('gs:proxy')).toBeUndefined();
    });

    it('returns a snapshot from metrics(), not a live view', async () => {
      const { store } = await fresh();
      const before = store.metrics();
      await store.set('gs:a', response('a'));
      expect(before.sets).toBe(0);
      expect(store.metrics().sets).toBe(1);
    });
  });
}
