import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

// Fault injection: writeSync goes through this switch (every other fs function is the real one).
const faults = vi.hoisted(() => ({ plan: undefined as undefined | { file: RegExp; afterBytes: number } }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const fdPaths = new Map<number, string>();
  const openSync = ((path: fs.PathLike, ...rest: unknown[]) => {
    const fd = (real.openSync as (...a: unknown[]) => number)(path, ...rest);
    fdPaths.set(fd, String(path));
    return fd;
  }) as typeof real.openSync;
  // A short write of `afterBytes` bytes with no error, then ENOSPC: a file system that fills up
  // mid-file. Strings are handled too (writeSync(fd, text) is one of its forms).
  const writeSync = ((fd: number, data: string | NodeJS.ArrayBufferView, offset?: unknown, length?: unknown, ...rest: unknown[]) => {
    const plan = faults.plan;
    if (plan !== undefined && plan.file.test(fdPaths.get(fd) ?? '')) {
      const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      const start = typeof data === 'string' ? 0 : ((offset as number | undefined) ?? 0);
      const wanted = typeof data === 'string' ? buf.length : ((length as number | undefined) ?? buf.length - start);
      if (plan.afterBytes > 0) {
        const n = Math.min(plan.afterBytes, wanted);
        plan.afterBytes -= n;
        return real.writeSync(fd, buf, start, n);
      }
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
    }
    return (real.writeSync as (...a: unknown[]) => number)(fd, data, offset, length, ...rest);
  }) as typeof real.writeSync;
  return { ...real, default: { ...real, openSync, writeSync }, openSync, writeSync };
});

// Test files share module instances (isolate: false): the store is loaded afresh here so that it
// sees the mocked node:fs even when another file in this worker loaded it first.
let JournalRunStore: typeof import('groundswell/durable').JournalRunStore;
let RunStoreError: typeof import('groundswell/durable').RunStoreError;
let writeRecording: typeof import('groundswell/durable').writeRecording;
let readRecording: typeof import('groundswell/durable').readRecording;
beforeAll(async () => {
  vi.resetModules();
  ({ JournalRunStore, RunStoreError, writeRecording, readRecording } = await import('groundswell/durable'));
});

const dirs: string[] = [];
const mounts: string[] = [];

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'groundswell-short-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  faults.plan = undefined;
  for (const mount of mounts.splice(0)) spawnSync('umount', [mount]);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const tempFiles = (dir: string): string[] => readdirSync(dir).filter((name) => name.endsWith('.tmp'));

describe('a recording file cut short (full disk)', () => {
  it('is refused whole: the earlier recording at that path is still read, and no temporary file is left', async () => {
    const dir = freshDir();
    const store = new JournalRunStore({ dir, fsync: 'off' });
    await store.createRun({ id: 'r', rootName: 'W' });
    const { exportRecording } = await import('groundswell/durable');
    const first = await exportRecording(store, 'r');
    const file = join(dir, 'r.recording.json');
    await writeRecording(file, first);
    await store.updateRun('r', { status: 'completed', result: 'r'.repeat(5_000) });
    faults.plan = { file: /\.r\.recording\.json\.[^/]*\.tmp$/, afterBytes: 20 };
    const failed = await writeRecording(file, await exportRecording(store, 'r')).catch((error: unknown) => error);
    expect((failed as Error).message).toContain('ENOSPC');
    faults.plan = undefined;
    expect(await readRecording(file)).toEqual(first);
    expect(tempFiles(dir)).toEqual([]);
    await store.close();
  });
});

describe('a rewritten file cut short (full disk)', () => {
  it('a run record that cannot be written whole is refused, and the previous record is still read and listed', async () => {
    const dir = freshDir();
    const store = new JournalRunStore({ dir, fsync: 'checkpoints' });
    await store.createRun({ id: 'pay', rootName: 'W' });
    const before = await store.updateRun('pay', { status: 'suspended', waitingFor: { name: 'ok', since: 1 } });
    faults.plan = { file: /\/\.run\.json\.[^/]*\.tmp$/, afterBytes: 20 };
    const failed = await store.updateRun('pay', { status: 'completed', result: 'r'.repeat(5_000), waitingFor: null }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(RunStoreError);
    expect((failed as Error).message).toContain(join(dir, 'pay', 'run.json'));
    expect((failed as Error).message).toContain('ENOSPC');
    expect((failed as Error).cause).toMatchObject({ code: 'ENOSPC' });
    faults.plan = undefined;
    await expect(store.getRun('pay')).resolves.toEqual(before);
    await expect(store.listRuns()).resolves.toEqual([before]);
    expect(tempFiles(join(dir, 'pay'))).toEqual([]);
    // Space comes back: the same change now goes through.
    await expect(store.updateRun('pay', { status: 'completed', result: 'done', waitingFor: null })).resolves.toMatchObject({ status: 'completed' });
    await expect(new JournalRunStore({ dir }).getRun('pay')).resolves.toMatchObject({ status: 'completed', result: 'done' });
  });

  it('a tree that cannot be written whole is refused, and the run still loads with its previous tree', async () => {
    const dir = freshDir();
    const store = new JournalRunStore({ dir, fsync: 'every-record' });
    await store.createRun({ id: 'wait', rootName: 'W' });
    await store.putTree('wait', { nodes: ['root'] });
    await store.updateRun('wait', { status: 'suspended', waitingFor: { name: 'go', since: 1 } });
    faults.plan = { file: /\/\.tree\.json\.[^/]*\.tmp$/, afterBytes: 12 };
    const failed = await store.putTree('wait', { nodes: ['root', 'x'.repeat(5_000)] }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(RunStoreError);
    expect((failed as Error).message).toContain(join(dir, 'wait', 'tree.json'));
    expect((failed as Error).cause).toMatchObject({ code: 'ENOSPC' });
    faults.plan = undefined;
    expect(tempFiles(join(dir, 'wait'))).toEqual([]);
    // What a resume or a signal needs: the run loads, with the tree it had.
    const reopened = new JournalRunStore({ dir });
    await reopened.putSignal('wait', { name: 'go', value: 1, at: 2 });
    const loaded = await reopened.loadRun('wait');
    expect(loaded.tree).toEqual({ nodes: ['root'] });
    expect(loaded.signals.map((s) => s.name)).toEqual(['go']);
  });
});

/** A real tmpfs of `kb` KiB, or the reason there is none (mounting needs root). */
function smallFileSystem(kb: number): { dir: string } | { skip: string } {
  const dir = freshDir();
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${kb}k,mode=0700`, 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    const reason = `cannot mount a small tmpfs here (${(mounted.stderr || mounted.error?.message || 'mount failed').trim()})`;
    if (process.env.GROUNDSWELL_REQUIRE_SERVICES === '1') throw new Error(`${reason}, and GROUNDSWELL_REQUIRE_SERVICES=1 requires it.`);
    return { skip: reason };
  }
  mounts.push(dir);
  return { dir };
}

/** Fills the file system at `dir` to the last byte, then frees `gap` bytes: a write larger than that is cut short by the kernel. */
function fillLeaving(dir: string, gap: number): void {
  writeFileSync(join(dir, 'gap'), Buffer.alloc(gap));
  try {
    writeFileSync(join(dir, 'ballast'), Buffer.alloc(2 * 1024 * 1024));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  }
  rmSync(join(dir, 'gap'));
}

describe('a real nearly full file system', () => {
  it('on a 1 MiB tmpfs, a run record and a tree that do not fit are refused: no run is lost and a suspended run still loads', async (context) => {
    const fsys = smallFileSystem(1024);
    if ('skip' in fsys) {
      console.warn(`skipped: ${fsys.skip}`);
      context.skip();
      return;
    }
    const dir = join(fsys.dir, 'runs');
    const damaged: unknown[] = [];
    const store = new JournalRunStore({ dir, fsync: 'checkpoints', onDamaged: (error) => damaged.push(error) });
    for (const id of ['a', 'b', 'c']) {
      await store.createRun({ id, rootName: 'W' });
      await store.updateRun(id, { status: 'completed', result: id });
    }
    await store.createRun({ id: 'done', rootName: 'W' });
    await store.createRun({ id: 'wait', rootName: 'W' });
    await store.putTree('wait', { nodes: ['root'] });
    await store.updateRun('wait', { status: 'suspended', waitingFor: { name: 'go', since: 1 } });
    const before = await store.listRuns();
    // 16 KiB free: the kernel writes that much of a 64 KiB file and reports a short count.
    fillLeaving(fsys.dir, 16 * 1024);
    const big = 'v'.repeat(64 * 1024);
    const failedRecord = await store.updateRun('done', { status: 'completed', result: big }).catch((error: unknown) => error);
    expect(failedRecord).toBeInstanceOf(RunStoreError);
    expect((failedRecord as Error).message).toContain(join(dir, 'done', 'run.json'));
    expect((failedRecord as Error).cause).toMatchObject({ code: 'ENOSPC' });
    const failedTree = await store.putTree('wait', { nodes: ['root', big] }).catch((error: unknown) => error);
    expect(failedTree).toBeInstanceOf(RunStoreError);
    expect((failedTree as Error).cause).toMatchObject({ code: 'ENOSPC' });
    const reopened = new JournalRunStore({ dir, onDamaged: (error) => damaged.push(error) });
    const after = await reopened.listRuns();
    expect(after.map((run) => run.id).sort()).toEqual(before.map((run) => run.id).sort());
    expect(after.find((run) => run.id === 'done')).toMatchObject({ status: 'running' });
    expect(damaged).toEqual([]);
    const loaded = await reopened.loadRun('wait');
    expect(loaded.run.status).toBe('suspended');
    expect(loaded.tree).toEqual({ nodes: ['root'] });
    expect(tempFiles(join(dir, 'done'))).toEqual([]);
    expect(tempFiles(join(dir, 'wait'))).toEqual([]);
    // Space comes back: the suspended run takes its signal and the record its final status.
    rmSync(join(fsys.dir, 'ballast'));
    await reopened.putSignal('wait', { name: 'go', value: 1, at: 2 });
    expect((await reopened.loadRun('wait')).signals.map((s) => s.name)).toEqual(['go']);
    await expect(reopened.updateRun('done', { status: 'completed', result: big })).resolves.toMatchObject({ status: 'completed' });
  });
});
