import { describe, expect, it } from 'vitest';
import { UsageError } from 'groundswell';
import type { Cache } from '../../src/cache/cache.js';
import { cacheIdentity } from '../../src/cache/cache-entry-header.js';
import { FakeClock } from '../support/fake-clock.js';
import { header, response, tempDirs } from './store-helpers.js';

// Stores that implement the optional `lookup` and `latestEntry`: one suite for both (contract).
export type LookupStore = Required<Pick<Cache, 'lookup' | 'latestEntry'>> & Cache;

/** A named way to make a fresh, empty store with `lookup` and `latestEntry` for one test. */
export type LookupStoreFactory = [name: string, create: (dir: string, clock: FakeClock, ttlMs?: number) => LookupStore];

/** `lookup`, headers and `latestEntry` as every store that has them behaves. */
export function describeLookupContract(factories: LookupStoreFactory[]): void {
  describe.each(factories)('%s: lookup, headers and latestEntry', (_name, create) => {
    const newDir = tempDirs();

    async function fresh(ttlMs?: number): Promise<{ store: LookupStore; clock: FakeClock }> {
      const clock = new FakeClock();
      return { store: create(await newDir(), clock, ttlMs), clock };
    }

    it('lookup says absent, then returns the response, then expired once its ttl is up (then absent)', async () => {
      const { store, clock } = await fresh(100);
      expect(await store.lookup('gs:a')).toEqual({ response: undefined, reason: 'absent' });
      await store.set('gs:a', response('a'));
      expect(await store.lookup('gs:a')).toEqual({ response: response('a') });
      clock.advance(101);
      expect(await store.lookup('gs:a')).toEqual({ response: undefined, reason: 'expired' });
      expect(await store.lookup('gs:a')).toEqual({ response: undefined, reason: 'absent' });
      expect(store.metrics()).toMatchObject({ hits: 1, misses: 3, evictions: 1, size: 0 });
    });

    it('latestEntry returns the header of the newest entry stored with an identity, and nothing else', async () => {
      const { store } = await fresh();
      const first = header('researcher', 'Summarise', 'a', 1);
      const second = header('researcher', 'Summarise', 'b', 2);
      await store.set('researcher:1', response(1), { header: first });
      expect(await store.latestEntry(first.identity)).toEqual(first);
      await store.set('researcher:2', response(2), { header: second });
      expect(await store.latestEntry(first.identity)).toEqual(second);
      // Another prompt of the same agent, and the same prompt name on another agent: other identities.
      expect(await store.latestEntry(cacheIdentity('researcher', 'Translate'))).toBeUndefined();
      expect(await store.latestEntry(cacheIdentity('writer', 'Summarise'))).toBeUndefined();
      // A peek: not a hit or a miss.
      expect(store.metrics()).toMatchObject({ hits: 0, misses: 0, sets: 2 });
    });

    it('latestEntry forgets an entry that was busted, overwritten without a header or expired', async () => {
      const { store, clock } = await fresh();
      const h = header();
      await store.set('researcher:1', response(1), { header: h });
      await store.bust('researcher:1');
      expect(await store.latestEntry(h.identity)).toBeUndefined();

      await store.set('researcher:2', response(2), { header: h });
      await store.set('researcher:2', response(3));
      expect(await store.latestEntry(h.identity)).toBeUndefined();

      await store.set('researcher:3', response(3), { header: h, ttlMs: 10 });
      clock.advance(11);
      expect(await store.latestEntry(h.identity)).toBeUndefined();
    });

    it('hands out a header nobody can change through it or through the one given to set', async () => {
      const { store } = await fresh();
      const h = header();
      const given = { ...h, parts: { ...h.parts }, ignored: [...h.ignored] };
      await store.set('researcher:1', response(1), { header: given });
      given.parts.user = 'f'.repeat(16);
      const got = await store.latestEntry(h.identity);
      expect(got).toEqual(h);
      try {
        (got?.parts as Record<string, string>).user = '0'.repeat(16); // frozen (memory) or a fresh copy (disk)
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError);
      }
      expect(await store.latestEntry(h.identity)).toEqual(h);
    });

    it('an unknown, malformed or path-like identity finds nothing; a non-string one is a UsageError', async () => {
      const { store } = await fresh();
      await store.set('researcher:1', response(1), { header: header() });
      for (const identity of ['', '../../etc/passwd', 'a'.repeat(64).toUpperCase(), 'z'.repeat(64)]) {
        expect(await store.latestEntry(identity)).toBeUndefined();
      }
      await expect(store.latestEntry(42 as unknown as string)).rejects.toBeInstanceOf(UsageError);
    });

    it.each([
      ['not an object', 'header', /the header is not an object/],
      ['a part that is not a fingerprint', { ...header(), parts: { ...header().parts, data: 'secret value' } }, /`header\.parts\.data` must be 16 hex digits/],
      ['an identity that is not a hash', { ...header(), identity: '../x' }, /`header\.identity` must be 64 hex digits/],
      ['an unknown ignored part', { ...header(), ignored: ['everything'] }, /`header\.ignored` must be an array of key part names/],
      ['a huge agent name', { ...header(), agent: 'x'.repeat(100_000) }, /`header\.agent` must be a string of at most 200 characters/],
      ['createdAt Infinity', { ...header(), createdAt: Number.POSITIVE_INFINITY }, /`header\.createdAt` must be a finite/],
    ])('refuses a header that is %s with a UsageError naming the field, storing nothing', async (_label, bad, message) => {
      const { store } = await fresh();
      await expect(store.set('gs:h', response('x'), { header: bad as never })).rejects.toThrow(message);
      await expect(store.set('gs:h', response('x'), { header: bad as never })).rejects.toBeInstanceOf(UsageError);
      expect(await store.get('gs:h')).toBeUndefined();
      expect(store.metrics()).toMatchObject({ sets: 0, size: 0 });
    });
  });
}
