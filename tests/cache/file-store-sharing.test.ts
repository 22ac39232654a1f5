import { mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from 'groundswell';
import { FileCacheStore } from '../../src/cache/file-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { response, tempDirs } from './store-helpers.js';

const HOUR = 3_600_000;

async function entryFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.endsWith('.json'));
}

async function tempFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.endsWith('.tmp')).sort();
}

/** Backdates a file's modification time by `ms` of real time. */
async function age(path: string, ms: number): Promise<void> {
  const then = new Date(Date.now() - ms);
  await utimes(path, then, then);
}

describe('FileCacheStore: stores sharing one directory', () => {
  const newDir = tempDirs();

  it('a store reading expired entries never deletes the fresh ones another store writes meanwhile', async () => {
    const dir = await newDir();
    const clock = new FakeClock();
    const writer = new FileCacheStore({ dir, clock });
    const reader = new FileCacheStore({ dir, clock });
    const keys = Array.from({ length: 300 }, (_, i) => `gs:${i}`);
    for (const key of keys) await writer.set(key, response('old'), { ttlMs: 10 });
    clock.advance(1_000);
    // The old entries have expired; the same keys are read by one store and rewritten by the other.
    await Promise.all(
      keys.map((key) => Promise.all([reader.get(key), writer.set(key, response('fresh'), { ttlMs: HOUR })])),
    );
    const check = new FileCacheStore({ dir, clock });
    const lost: string[] = [];
    for (const key of keys) {
      if ((await check.get(key))?.value !== 'fresh') lost.push(key);
    }
    expect(lost).toEqual([]);
    expect(await entryFiles(dir)).toHaveLength(keys.length);
    expect(await tempFiles(dir)).toEqual([]);
    // 1,200 file operations: seconds on a loaded machine, which must make it slower, not red.
  }, 60_000);

  it('a fresh entry that lands between the read and the removal of an expired one is kept', async () => {
    const dir = await newDir();
    const staging = await newDir();
    const clock = new FakeClock();
    await new FileCacheStore({ dir, clock }).set('gs:k', response('old'), { ttlMs: 10 });
    clock.advance(1_000);
    // Another process's fresh write of the same key, ready to be renamed into place.
    await new FileCacheStore({ dir: staging, clock }).set('gs:k', response('fresh'), { ttlMs: HOUR });
    const [name] = await entryFiles(staging);
    if (name === undefined) throw new Error('expected a staged entry');

    // The reader's clock is read after the file was read: the other process's rename lands exactly then.
    let armed = true;
    const racingClock = {
      now(): number {
        if (armed) {
          armed = false;
          renameSync(join(staging, name), join(dir, name));
        }
        return clock.now();
      },
    };
    const reader = new FileCacheStore({ dir, clock: racingClock });
    await reader.get('gs:k');
    expect(armed).toBe(false);
    expect((await new FileCacheStore({ dir, clock }).get('gs:k'))?.value).toBe('fresh');
    expect(await tempFiles(dir)).toEqual([]);
  });

  it('an expired entry nobody rewrote is still removed on read, and counted as an eviction', async () => {
    const dir = await newDir();
    const clock = new FakeClock();
    const store = new FileCacheStore({ dir, clock, ttlMs: 10 });
    await store.set('gs:a', response('a'));
    clock.advance(11);
    expect(await store.get('gs:a')).toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
    expect(store.metrics()).toMatchObject({ evictions: 1, size: 0 });
  });
});

describe('FileCacheStore: temp files of writes that never finished', () => {
  const newDir = tempDirs();
  const entry = `gs-${'a'.repeat(64)}.json`;

  it('removes stale temp files when a store opens, and leaves fresh ones, foreign files and entries', async () => {
    const dir = await newDir();
    await new FileCacheStore({ dir }).set('gs:kept', response('kept'));
    const stale = [`${entry}.0b7e0c2a-1111-4a4a-9a9a-000000000001.tmp`, `${entry}.0b7e0c2a-2222-4a4a-9a9a-000000000002.evict.tmp`];
    const fresh = `${entry}.0b7e0c2a-3333-4a4a-9a9a-000000000003.tmp`;
    const foreign = 'notes.tmp';
    for (const name of [...stale, fresh, foreign]) await writeFile(join(dir, name), 'x'.repeat(1_000));
    for (const name of [...stale, foreign]) await age(join(dir, name), HOUR);

    const store = new FileCacheStore({ dir });
    expect(await tempFiles(dir)).toEqual([fresh, foreign].sort());
    expect((await store.get('gs:kept'))?.value).toBe('kept');
    expect(store.metrics().size).toBe(1);
  });

  it('staleTempMs sets how old a temp file must be before it is removed', async () => {
    const dir = await newDir();
    const temp = `${entry}.0b7e0c2a-4444-4a4a-9a9a-000000000004.tmp`;
    await writeFile(join(dir, temp), 'partial');
    await age(join(dir, temp), 60_000);
    new FileCacheStore({ dir });
    expect(await tempFiles(dir)).toEqual([temp]);
    new FileCacheStore({ dir, staleTempMs: 30_000 });
    expect(await tempFiles(dir)).toEqual([]);
  });

  it('refuses a staleTempMs that is not a positive whole number', async () => {
    const dir = await newDir();
    for (const staleTempMs of [0, -1, 1.5, Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(() => new FileCacheStore({ dir, staleTempMs })).toThrow(UsageError);
    }
  });

  it('prune() removes expired and damaged entries and stale temp files, and keeps live entries', async () => {
    const dir = await newDir();
    const clock = new FakeClock();
    const store = new FileCacheStore({ dir, clock });
    await store.set('gs:short', response('short'), { ttlMs: 10 });
    await store.set('gs:long', response('long'), { ttlMs: HOUR });
    await writeFile(join(dir, `gs-${'b'.repeat(64)}.json`), '{"format":1,"key":');
    const temp = `${entry}.0b7e0c2a-5555-4a4a-9a9a-000000000005.tmp`;
    await writeFile(join(dir, temp), 'partial');
    await age(join(dir, temp), HOUR);
    clock.advance(11);

    expect(await store.prune()).toEqual({ expired: 1, damaged: 1, indexes: 0, temp: 1 });
    expect(await entryFiles(dir)).toHaveLength(1);
    expect(await tempFiles(dir)).toEqual([]);
    expect((await store.get('gs:long'))?.value).toBe('long');
  });
});

describe('FileCacheStore: damaged files read as a miss', () => {
  const newDir = tempDirs();

  async function storeWithFile(mutate: (text: string) => string): Promise<{ store: FileCacheStore; dir: string }> {
    const dir = await newDir();
    const clock = new FakeClock();
    const store = new FileCacheStore({ dir, clock });
    await store.set('gs:a', response('a'), { ttlMs: HOUR });
    const [name] = await entryFiles(dir);
    const file = join(dir, name ?? '');
    await writeFile(file, mutate(await readFile(file, 'utf8')));
    return { store, dir };
  }

  it.each([
    ['storedAt 1e400 (parses as Infinity)', (text: string) => text.replace(/"storedAt": \d+/, '"storedAt": 1e400')],
    ['expiresAt 1e400 (would never expire)', (text: string) => text.replace(/"expiresAt": \d+/, '"expiresAt": 1e400')],
    ['a negative token count', (text: string) => text.replace(/"inputTokens": \d+/, '"inputTokens": -5')],
    ['half of the file', (text: string) => text.slice(0, Math.floor(text.length / 2))],
    ['a JSON array', () => '[1, 2, 3]'],
  ])('%s: a miss, the file removed, and the key writable again', async (_label, mutate) => {
    const { store, dir } = await storeWithFile(mutate);
    expect(await store.get('gs:a')).toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
    await store.set('gs:a', response('again'));
    expect((await store.get('gs:a'))?.value).toBe('again');
  });

  it('a directory in place of an entry file is a miss and is left alone', async () => {
    const dir = await newDir();
    const store = new FileCacheStore({ dir });
    await store.set('gs:a', response('a'));
    const [name] = await entryFiles(dir);
    const file = join(dir, name ?? '');
    await rm(file);
    await mkdir(file);
    expect(await store.get('gs:a')).toBeUndefined();
    expect(await readdir(dir)).toEqual([name]);
  });
});
