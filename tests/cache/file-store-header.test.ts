import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileCacheStore } from '../../src/cache/file-store.js';
import { header, response, tempDirs } from './store-helpers.js';

/** The file name FileCacheStore uses for `key` (namespace label, SHA-256 of the key). */
function entryFile(key: string): string {
  return `${key.slice(0, key.indexOf(':'))}-${createHash('sha256').update(key).digest('hex')}.json`;
}

const indexFile = (identity: string): string => `latest-${identity}.idx`;

describe('FileCacheStore: entry headers', () => {
  const newDir = tempDirs();

  it('writes the header at the top of the entry file, and an index file for its identity', async () => {
    const dir = await newDir();
    const h = header();
    await new FileCacheStore({ dir }).set('researcher:1', response('a'), { header: h });
    const text = await readFile(join(dir, entryFile('researcher:1')), 'utf8');
    expect(text.startsWith('{\n  "header": {\n    "agent": "researcher",')).toBe(true);
    expect(Object.keys(JSON.parse(text) as object)).toEqual(['header', 'format', 'key', 'expiresAt', 'response']);
    expect((JSON.parse(text) as { header: unknown }).header).toEqual(h);
    expect((await readdir(dir)).sort()).toEqual([entryFile('researcher:1'), indexFile(h.identity)].sort());
    // The index file is not an entry.
    expect(new FileCacheStore({ dir }).metrics().size).toBe(1);
  });

  it('still reads an entry written before headers existed (no header, no index file)', async () => {
    const dir = await newDir();
    const old = { format: 1, key: 'geo:old', expiresAt: null, response: response({ city: 'Paris' }) };
    await writeFile(join(dir, entryFile('geo:old')), `${JSON.stringify(old, null, 2)}\n`);
    const store = new FileCacheStore({ dir });
    expect(await store.lookup('geo:old')).toEqual({ response: response({ city: 'Paris' }) });
    expect(await store.prune()).toEqual({ expired: 0, damaged: 0, indexes: 0, temp: 0 });
    expect(await readdir(dir)).toEqual([entryFile('geo:old')]);
  });

  it.each([
    ['a number', 42],
    ['null', null],
    ['an array', [1, 2, 3]],
    ['a huge string', 'x'.repeat(1_000_000)],
    ['an object with a huge agent name', { ...header(), agent: 'x'.repeat(1_000_000) }],
    ['an object whose parts are a string', { ...header(), parts: 'all of them' }],
    ['an object with deeply nested parts', { ...header(), parts: { data: [[[[['deep']]]]] } }],
  ])('a damaged header (%s) is a miss with reason damaged, removed, never a crash', async (_label, bad) => {
    const dir = await newDir();
    const store = new FileCacheStore({ dir });
    const good = { header: header(), format: 1, key: 'researcher:1', expiresAt: null, response: response('a') };
    await writeFile(join(dir, entryFile('researcher:1')), JSON.stringify({ ...good, header: bad }));
    expect(await store.lookup('researcher:1')).toEqual({ response: undefined, reason: 'damaged' });
    expect(await readdir(dir)).toEqual([]);
    await store.set('researcher:1', response('again'), { header: header() });
    expect((await store.get('researcher:1'))?.value).toBe('again');
  });

  it('a hostile or dangling index file finds nothing and never throws; prune removes it and keeps good ones', async () => {
    const dir = await newDir();
    const store = new FileCacheStore({ dir });
    const mine = header('researcher', 'Summarise');
    const other = header('writer', 'Draft');
    await store.set('researcher:1', response(1), { header: mine });
    await store.set('writer:1', response(2), { header: other });
    const cases: Array<[string, string]> = [
      [header('a', 'garbage').identity, '{"format":1,"key":'],
      [header('a', 'huge').identity, JSON.stringify({ format: 1, identity: header('a', 'huge').identity, key: 'k'.repeat(500_000) })],
      [header('a', 'not ours').identity, JSON.stringify({ format: 1, identity: mine.identity, key: 'researcher:1' })],
      // Points at an entry that exists, but belongs to another identity.
      [header('a', 'borrowed').identity, JSON.stringify({ format: 1, identity: header('a', 'borrowed').identity, key: 'writer:1' })],
      // Points at nothing.
      [header('a', 'dangling').identity, JSON.stringify({ format: 1, identity: header('a', 'dangling').identity, key: 'gone:1' })],
    ];
    for (const [identity, text] of cases) {
      await writeFile(join(dir, indexFile(identity)), text);
      expect(await store.latestEntry(identity)).toBeUndefined();
    }
    // A directory where an index file would be.
    const blocked = header('a', 'blocked').identity;
    await mkdir(join(dir, indexFile(blocked)));
    expect(await store.latestEntry(blocked)).toBeUndefined();

    expect(await store.prune()).toEqual({ expired: 0, damaged: 0, indexes: cases.length, temp: 0 });
    expect(await store.latestEntry(mine.identity)).toEqual(mine);
    expect(await store.latestEntry(other.identity)).toEqual(other);
    expect((await readdir(dir)).filter((name) => name.endsWith('.idx')).sort()).toEqual(
      [indexFile(mine.identity), indexFile(other.identity), indexFile(blocked)].sort(),
    );
  });

  it('prune removes the index file of an entry that was busted', async () => {
    const dir = await newDir();
    const store = new FileCacheStore({ dir });
    const h = header();
    await store.set('researcher:1', response(1), { header: h });
    await store.bust('researcher:1');
    expect(await store.prune()).toMatchObject({ indexes: 1 });
    expect(await readdir(dir)).toEqual([]);
  });
});
