import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileCacheStore } from '../../src/cache/file-store.js';
import { header, response, tempDirs } from './store-helpers.js';

// Cached prompts and answers are private to the user running the agent, whatever their umask.
const posix = process.platform !== 'win32';
const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);

/** Runs `body` with umask 0, the most permissive, restoring the old umask after. */
async function withUmaskZero(body: () => Promise<void>): Promise<void> {
  const before = process.umask(0);
  try {
    await body();
  } finally {
    process.umask(before);
  }
}

describe.skipIf(!posix)('FileCacheStore file modes', () => {
  const newDir = tempDirs();

  it('creates its folders 0700 and its entry and index files 0600 whatever the umask', async () => {
    const parent = await newDir();
    const dir = join(parent, 'nested', 'recordings');
    await withUmaskZero(async () => {
      const store = new FileCacheStore({ dir });
      await store.set('researcher:1', response('the answer'), { header: header() });
      await store.set('researcher:1', response('a newer answer'), { header: header() });
      await store.set('writer:2', response('draft'));
    });
    expect([modeOf(join(parent, 'nested')), modeOf(dir)]).toEqual(['700', '700']);
    const files = readdirSync(dir);
    expect(files.some((name) => name.endsWith('.json')) && files.some((name) => name.endsWith('.idx'))).toBe(true);
    expect(files.map((name) => [name, modeOf(join(dir, name))]).filter(([, mode]) => mode !== '600')).toEqual([]);
  });

  it('keeps the mode of a folder the user made, and still writes its files 0600', async () => {
    const dir = join(await newDir(), 'shared');
    await withUmaskZero(async () => {
      mkdirSync(dir, { mode: 0o750 });
      await new FileCacheStore({ dir }).set('researcher:1', response('the answer'));
    });
    expect(modeOf(dir)).toBe('750');
    expect(readdirSync(dir).map((name) => modeOf(join(dir, name)))).toEqual(['600']);
  });
});
