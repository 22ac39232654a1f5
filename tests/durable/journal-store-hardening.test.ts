import { cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalRunStore, RunStoreCorruptError, type RunStore } from 'groundswell/durable';

const dirs: string[] = [];
const posix = process.platform !== 'win32';

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'groundswell-hardening-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/** Every folder and file under `dir` with its permission bits. */
function modes(dir: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    out.push([path, (stat.mode & 0o777).toString(8)]);
    if (stat.isDirectory()) out.push(...modes(path));
  }
  return out;
}

/** A listing of `dir` with each file's content: what a write through a link would change. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
}

/** Every call a store takes for run `id` that reads or writes its folder. */
function everyUse(store: RunStore, id: string): Array<[string, () => Promise<unknown>]> {
  return [
    ['getRun', () => store.getRun(id)],
    ['loadRun', () => store.loadRun(id)],
    ['updateRun', () => store.updateRun(id, { status: 'completed' })],
    ['readEvents', () => store.readEvents(id)],
    ['putStep', () => store.putStep(id, { key: 's', status: 'completed', value: 1, at: 1 })],
    ['putTree', () => store.putTree(id, { nodes: [] })],
    ['putSignal', () => store.putSignal(id, { name: 'go', value: 1, at: 1 })],
    ['acquireLease', () => store.acquireLease(id, 'me', 60_000)],
  ];
}

describe('JournalRunStore hardening', () => {
  it.skipIf(!posix)('creates folders 0700 and files 0600 whatever the umask', async () => {
    const root = join(freshDir(), 'store');
    const before = process.umask(0);
    try {
      const store = new JournalRunStore({ dir: root });
      await store.createRun({ id: 'r', rootName: 'W', input: { secret: 's3cret' } });
      await store.putStep('r', { key: 's', status: 'completed', value: 'answer', at: 1 });
      await store.putData('r', 'd', 1);
      await store.appendEvents('r', [{ type: 'e' }]);
      await store.putTree('r', { nodes: [] });
      await store.putSignal('r', { name: 'go', value: 1, at: 1 });
      await store.updateRun('r', { status: 'suspended' });
      const lease = await store.acquireLease('r', 'me', 60_000);
      await lease.renew();
      await store.close();
      const found: Array<[string, string]> = [[root, (lstatSync(root).mode & 0o777).toString(8)], ...modes(root)];
      const names = found.map(([path]) => path.slice(root.length));
      expect(names).toEqual(expect.arrayContaining(['', '/r', '/r/run.json', '/r/journal.log', '/r/events.log', '/r/tree.json', '/r/holders', '/r/holders/1', '/r/holders/1/lease.json', '/r/holders/0.end']));
      expect(found.filter(([path, mode]) => mode !== (lstatSync(path).isDirectory() ? '700' : '600'))).toEqual([]);
    } finally {
      process.umask(before);
    }
  });

  it.skipIf(!posix)('a run folder that is a symbolic link is refused, naming it, and nothing is read or written through it', async () => {
    // The store folder itself may be a link (the user chose it): only what is inside is refused.
    const real = freshDir();
    const dir = join(freshDir(), 'runs');
    symlinkSync(real, dir);
    const store = new JournalRunStore({ dir, fsync: 'off' });
    await store.createRun({ id: 'real', rootName: 'W' });
    await store.close();
    // A folder outside the store that holds a valid run "elsewhere".
    const outside = join(freshDir(), 'elsewhere');
    cpSync(join(dir, 'real'), outside, { recursive: true });
    const record = JSON.parse(readFileSync(join(outside, 'run.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(outside, 'run.json'), JSON.stringify({ ...record, id: 'elsewhere' }));
    const before = snapshot(outside);
    const link = join(dir, 'elsewhere');
    symlinkSync(outside, link);

    const damaged: RunStoreCorruptError[] = [];
    const reopened = new JournalRunStore({ dir, fsync: 'off', onDamaged: (error) => damaged.push(error) });
    for (const [name, use] of [...everyUse(reopened, 'elsewhere'), ['createRun', () => reopened.createRun({ id: 'elsewhere', rootName: 'W' })] as const]) {
      const error = await rejection(use());
      expect(error, name).toBeInstanceOf(RunStoreCorruptError);
      expect((error as RunStoreCorruptError).file, name).toBe(link);
      expect((error as Error).message, name).toMatch(/symbolic link/);
    }
    expect(snapshot(outside)).toEqual(before);
    // Listing skips it, reports it, and still lists the real run.
    expect((await reopened.listRuns()).map((run) => run.id)).toEqual(['real']);
    expect(damaged.map((error) => error.file)).toEqual([link]);
    expect((await reopened.loadRun('real')).run.id).toBe('real');
    expect(readdirSync(real).sort()).toEqual(['elsewhere', 'real']);
    await reopened.close();
  });

  it.skipIf(!posix)('a file of a run that is a symbolic link is refused and what it points to is left alone', async () => {
    for (const file of ['run.json', 'journal.log', 'events.log', 'tree.json', 'lease.json']) {
      const dir = freshDir();
      const store = new JournalRunStore({ dir, fsync: 'off' });
      await store.createRun({ id: 'r', rootName: 'W' });
      await store.putStep('r', { key: 'a', status: 'completed', value: 1, at: 1 });
      await store.appendEvents('r', [{ type: 'e' }]);
      await store.putTree('r', { nodes: [] });
      await store.close();
      const target = join(freshDir(), 'target');
      cpSync(join(dir, 'r', file === 'lease.json' ? 'tree.json' : file), target);
      const content = readFileSync(target, 'utf8');
      rmSync(join(dir, 'r', file), { force: true });
      symlinkSync(target, join(dir, 'r', file));

      const reopened = new JournalRunStore({ dir, fsync: 'off' });
      for (const [name, use] of everyUse(reopened, 'r')) {
        const error = await rejection(use());
        expect(error, `${file} ${name}`).toBeInstanceOf(RunStoreCorruptError);
        expect((error as RunStoreCorruptError).file, `${file} ${name}`).toBe(join(dir, 'r', file));
      }
      expect(readFileSync(target, 'utf8')).toBe(content);
      await reopened.close();
    }
  });

  it('a lease file that holds no lease is refused, naming the file and how to clear it, and left as it is', async () => {
    const dir = freshDir();
    const store = new JournalRunStore({ dir });
    await store.createRun({ id: 'r', rootName: 'W' });
    const path = join(dir, 'r', 'lease.json');
    for (const garbage of ['', 'not json', '{}', '[1]', 'null', JSON.stringify({ owner: 'x', expiresAt: 1 })]) {
      writeFileSync(path, garbage);
      const error = await rejection(store.acquireLease('r', 'me', 60_000));
      expect(error, garbage).toBeInstanceOf(RunStoreCorruptError);
      expect((error as RunStoreCorruptError).file).toBe(path);
      expect((error as Error).message).toMatch(/delete it/);
      expect(readFileSync(path, 'utf8')).toBe(garbage);
    }
    // Once cleared, the lease is taken as usual.
    rmSync(path);
    expect((await store.acquireLease('r', 'me', 60_000)).owner).toBe('me');
    await store.close();
  });

  it('a run.json that is not a run record, or another run\'s, is refused; listing skips and reports it', async () => {
    const dir = freshDir();
    const damaged: RunStoreCorruptError[] = [];
    const store = new JournalRunStore({ dir, fsync: 'off', onDamaged: (error) => damaged.push(error) });
    await store.createRun({ id: 'good', rootName: 'W' });
    const record = JSON.parse(readFileSync(join(dir, 'good', 'run.json'), 'utf8')) as Record<string, unknown>;
    const bad: Record<string, unknown> = {
      'is-null': null,
      'is-number': 42,
      'is-array': [record],
      'no-id': { ...record, id: undefined },
      'no-root': { ...record, id: 'no-root', rootName: undefined },
      'no-status': { ...record, id: 'no-status', status: 'sleeping' },
      'no-created': { ...record, id: 'no-created', createdAt: 'yesterday' },
      'not-mine': { ...record, id: 'good' },
    };
    for (const [id, content] of Object.entries(bad)) {
      mkdirSync(join(dir, id));
      writeFileSync(join(dir, id, 'run.json'), JSON.stringify(content));
    }
    for (const id of Object.keys(bad)) {
      const file = join(dir, id, 'run.json');
      for (const [name, use] of [
        ['getRun', () => store.getRun(id)],
        ['loadRun', () => store.loadRun(id)],
        ['updateRun', () => store.updateRun(id, { status: 'failed' })],
      ] as const) {
        const error = await rejection(use());
        expect(error, `${id} ${name}`).toBeInstanceOf(RunStoreCorruptError);
        expect((error as RunStoreCorruptError).file, `${id} ${name}`).toBe(file);
      }
    }
    expect((await store.listRuns()).map((run) => run.id)).toEqual(['good']);
    expect(damaged.map((error) => error.file).sort()).toEqual(Object.keys(bad).map((id) => join(dir, id, 'run.json')).sort());
    expect(damaged.find((error) => error.file.includes('not-mine'))?.message).toMatch(/"good"/);
    await store.close();
  });

  it('data named __proto__ comes back as its own property and leaves the prototype alone', async () => {
    const store = new JournalRunStore({ dir: freshDir(), fsync: 'off' });
    await store.createRun({ id: 'r', rootName: 'W' });
    await store.putData('r', '__proto__', { polluted: true });
    await store.putData('r', 'plain', 1);
    const { data } = await store.loadRun('r');
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.keys(data)).toEqual(['__proto__', 'plain']);
    expect(Object.getOwnPropertyDescriptor(data, '__proto__')?.value).toEqual({ polluted: true });
    expect((data as { polluted?: unknown }).polluted).toBeUndefined();
    await store.close();
  });
});
