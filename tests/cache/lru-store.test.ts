import { describe, expect, it } from 'vitest';
import { UsageError } from 'groundswell';
import { LruCacheStore } from '../../src/cache/lru-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { response } from './store-helpers.js';

/** What the store counts against maxBytes for one entry. */
function bytesOf(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(response(value)), 'utf8');
}

describe('LruCacheStore', () => {
  it('evicts the least recently used entry past maxEntries and counts it', async () => {
    const store = new LruCacheStore({ maxEntries: 2 });
    await store.set('gs:a', response('a'));
    await store.set('gs:b', response('b'));
    await store.get('gs:a'); // a is now more recent than b
    await store.set('gs:c', response('c'));
    expect(await store.get('gs:b')).toBeUndefined();
    expect((await store.get('gs:a'))?.value).toBe('a');
    expect((await store.get('gs:c'))?.value).toBe('c');
    expect(store.metrics()).toMatchObject({ evictions: 1, size: 2, sets: 3 });
  });

  it('evicts for maxBytes (UTF-8 bytes of the JSON) and counts it', async () => {
    const entry = bytesOf('éé'); // two 2-byte characters: bytes, not string length, are counted
    expect(entry).toBe(JSON.stringify(response('éé')).length + 2);
    const store = new LruCacheStore({ maxBytes: entry * 2 });
    await store.set('gs:1', response('éé'));
    await store.set('gs:2', response('éé'));
    expect(store.metrics()).toMatchObject({ size: 2, evictions: 0 });
    await store.set('gs:3', response('éé'));
    expect(await store.get('gs:1')).toBeUndefined();
    expect(store.metrics()).toMatchObject({ size: 2, evictions: 1 });
  });

  it('drops an entry larger than maxBytes on its own, as an eviction, and the old value with it', async () => {
    const store = new LruCacheStore({ maxBytes: bytesOf('small') });
    await store.set('gs:k', response('small'));
    await store.set('gs:k', response('much too large for the byte limit'));
    expect(await store.get('gs:k')).toBeUndefined();
    expect(store.metrics()).toMatchObject({ sets: 2, evictions: 1, size: 0 });
  });

  it('holds 1000 entries by default', async () => {
    const store = new LruCacheStore();
    for (let i = 0; i < 1001; i++) await store.set(`gs:${i}`, response(i));
    expect(store.metrics()).toMatchObject({ size: 1000, evictions: 1 });
    expect(await store.get('gs:0')).toBeUndefined();
  });

  it('does not count an overwrite or a bust as an eviction', async () => {
    const store = new LruCacheStore({ maxEntries: 5 });
    await store.set('gs:a', response(1));
    await store.set('gs:a', response(2));
    await store.bust('gs:a');
    expect(store.metrics()).toMatchObject({ evictions: 0, busts: 1, size: 0 });
  });

  it('reports size without expired entries that were never read again', async () => {
    const clock = new FakeClock();
    const store = new LruCacheStore({ ttlMs: 100, clock });
    await store.set('gs:a', response('a'));
    await store.set('gs:b', response('b'), { ttlMs: 1000 });
    clock.advance(101);
    expect(store.metrics()).toMatchObject({ size: 1, evictions: 1 });
  });

  it('lookup answers the stored response parsed once and deep-frozen; get still hands out a copy the caller owns', async () => {
    const store = new LruCacheStore();
    const value = { list: [1, { deep: 'x' }], nested: { n: 1 } };
    await store.set('gs:a', response(value));
    value.nested.n = 2;
    const first = await store.lookup('gs:a');
    const second = await store.lookup('gs:a');
    expect(first.response).toEqual(response({ list: [1, { deep: 'x' }], nested: { n: 1 } }));
    // Shared by every hit, so nobody can change it: not the top, not the deepest level.
    expect(second.response).toBe(first.response);
    expect(Object.isFrozen(first.response)).toBe(true);
    expect(Object.isFrozen((first.response?.value as typeof value).list[1])).toBe(true);
    expect(() => {
      (first.response?.value as typeof value).nested.n = 3;
    }).toThrow(TypeError);
    const copy = (await store.get('gs:a'))?.value as typeof value;
    expect(Object.isFrozen(copy)).toBe(false);
    copy.nested.n = 4;
    expect(((await store.lookup('gs:a')).response?.value as typeof value).nested.n).toBe(1);
    expect(((await store.get('gs:a'))?.value as typeof value).nested.n).toBe(1);
    expect(store.metrics()).toMatchObject({ hits: 5, misses: 0 });
  });

  it('rejects limits that are not positive whole numbers', () => {
    expect(() => new LruCacheStore({ maxEntries: 0 })).toThrow(UsageError);
    expect(() => new LruCacheStore({ maxBytes: -1 })).toThrow(UsageError);
    expect(() => new LruCacheStore({ ttlMs: 2.5 })).toThrow(/ttlMs must be a positive whole number/);
  });
});
