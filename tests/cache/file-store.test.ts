import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from 'groundswell';
import { CacheStoreError } from '../../src/cache/cache-store-error.js';
import { FileCacheStore } from '../../src/cache/file-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { response, tempDirs } from './store-helpers.js';

describe('FileCacheStore', () => {
  const newDir = tempDirs();

  /** The one entry file in `dir` (fails if there is not exactly one). */
  async function onlyFile(dir: string): Promise<string> {
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    return join(dir, files[0] ?? '');
  }

  it('creates a missing directory', async () => {
    const dir = join(await newDir(), 'nested', 'recordings');
    const store = new FileCacheStore({ dir });
    await store.set('gs:a', response('a'));
    expect(await readdir(dir)).toHaveLength(1);
  });

  it('replays what an earlier instance recorded in the same directory', async () => {
    const dir = await newDir();
    const recorder = new FileCacheStore({ dir });
    await recorder.set('researcher:abc', response({ answer: 42 }));
    await recorder.set('writer:def', response('draft'));

    const replayer = new FileCacheStore({ dir });
    expect(replayer.metrics().size).toBe(2);
    expect(await replayer.get('researcher:abc')).toEqual(response({ answer: 42 }));
    expect(await replayer.bustPrefix('writer:')).toBe(1);
    expect(replayer.metrics()).toMatchObject({ hits: 1, busts: 1, size: 1 });
  });

  it('keeps ttl expiry across instances (expiry is stored as a time, not a timer)', async () => {
    const dir = await newDir();
    const clock = new FakeClock();
    await new FileCacheStore({ dir, clock, ttlMs: 100 }).set('gs:a', response('a'));
    clock.advance(101);
    const later = new FileCacheStore({ dir, clock });
    expect(await later.get('gs:a')).toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
    expect(later.metrics()).toMatchObject({ evictions: 1, size: 0 });
  });

  it('stores the original key inside a readable JSON file named by namespace and hash', async () => {
    const dir = await newDir();
    await new FileCacheStore({ dir }).set('researcher:0123', response('a'));
    const file = await onlyFile(dir);
    expect(file).toMatch(/researcher-[0-9a-f]{64}\.json$/);
    const stored = JSON.parse(await readFile(file, 'utf8')) as { key: string; response: unknown };
    expect(stored.key).toBe('researcher:0123');
    expect(stored.response).toEqual(response('a'));
  });

  it.each([
    ['not JSON', '{"format":1,"key":'],
    ['JSON of the wrong shape', '{"format":1,"key":"gs:a","expiresAt":null,"response":{"value":1}}'],
    ['an empty file', ''],
  ])('treats a corrupt file (%s) as a miss and removes it', async (_label, content) => {
    const dir = await newDir();
    const store = new FileCacheStore({ dir });
    await store.set('gs:a', response('a'));
    const file = await onlyFile(dir);
    await writeFile(file, content);
    expect(await store.get('gs:a')).toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
    expect(store.metrics()).toMatchObject({ misses: 1, size: 0 });
    await store.set('gs:a', response('again'));
    expect((await store.get('gs:a'))?.value).toBe('again');
  });

  it('treats a file holding another key as a miss (a renamed or copied recording)', async () => {
    const dir = await newDir();
    const store = new FileCacheStore({ dir });
    await store.set('gs:a', response('a'));
    const fileA = await onlyFile(dir);
    await store.set('gs:b', response('b'));
    const fileB = (await readdir(dir)).map((f) => join(dir, f)).find((f) => f !== fileA) ?? '';
    await writeFile(fileB, await readFile(fileA, 'utf8'));
    expect(await store.get('gs:b')).toBeUndefined();
    expect((await store.get('gs:a'))?.value).toBe('a');
  });

  it('does not throw from get when the entry path cannot be read as a file', async () => {
    const dir = await newDir();
    const store = new FileCacheStore({ dir });
    await store.set('gs:a', response('a'));
    const file = await onlyFile(dir);
    // Replace the file with a directory of the same name: reading it fails with EISDIR.
    await rm(file);
    await mkdir(file);
    expect(await store.get('gs:a')).toBeUndefined();
  });

  it.each(['../../etc/passwd', '/etc/passwd', '..\\..\\windows', 'a/../../b:c', '..:x', '\0null:byte'])(
    'keeps a hostile key (%j) inside the directory',
    async (key) => {
      const root = await newDir();
      const dir = join(root, 'cache');
      const store = new FileCacheStore({ dir });
      await store.set(key, response('hostile'));
      expect(await readdir(root)).toEqual(['cache']);
      const file = await onlyFile(dir);
      expect(dirname(file)).toBe(dir);
      expect(basename(file)).toMatch(/^[\w-]+-[0-9a-f]{64}\.json$/);
      expect((await store.get(key))?.value).toBe('hostile');
      expect(await store.bust(key)).toBe(true);
    },
  );

  it('writes atomically: concurrent writes leave one complete file and no temp files', async () => {
    const dir = await newDir();
    const store = new FileCacheStore({ dir });
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.set('gs:same', response({ i, pad: 'x'.repeat(5000) }))));
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.set(`gs:${i}`, response(i))));
    const files = await readdir(dir);
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(files).toHaveLength(21);
    expect(store.metrics().size).toBe(21);
    const same = await store.get('gs:same');
    expect((same?.value as { pad: string }).pad).toHaveLength(5000);
  });

  it('does not count temp files or foreign files as entries', async () => {
    const dir = await newDir();
    await writeFile(join(dir, `gs-${'a'.repeat(64)}.json.1234.tmp`), 'partial');
    await writeFile(join(dir, 'README.md'), 'recordings');
    const store = new FileCacheStore({ dir });
    expect(store.metrics().size).toBe(0);
    expect(await store.bustPrefix('')).toBe(0);
    expect((await readdir(dir)).sort()).toEqual(['README.md', `gs-${'a'.repeat(64)}.json.1234.tmp`]);
  });

  it('needs a dir, and says so when it cannot use it', async () => {
    expect(() => new FileCacheStore({ dir: '' })).toThrow(UsageError);
    const blocker = join(await newDir(), 'a-file');
    await writeFile(blocker, 'not a directory');
    expect(() => new FileCacheStore({ dir: blocker })).toThrow(CacheStoreError);
  });
});
