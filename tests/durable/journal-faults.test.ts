import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { encodeFrame } from '../../src/durable/journal/journal-frame.js';

// Fault injection: writeSync goes through this switch (every other fs function is the real one).
const faults = vi.hoisted(() => ({ plan: undefined as undefined | { path: string; afterBytes: number } }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const fdPaths = new Map<number, string>();
  const openSync = ((path: fs.PathLike, ...rest: unknown[]) => {
    const fd = (real.openSync as (...a: unknown[]) => number)(path, ...rest);
    fdPaths.set(fd, String(path));
    return fd;
  }) as typeof real.openSync;
  // A short write of `afterBytes` bytes, then ENOSPC: what a file system that fills up mid-record does.
  const writeSync = ((fd: number, buffer: NodeJS.ArrayBufferView, offset?: number, length?: number, ...rest: unknown[]) => {
    const plan = faults.plan;
    const path = fdPaths.get(fd) ?? '';
    if (plan !== undefined && path.endsWith(plan.path) && Buffer.isBuffer(buffer)) {
      const start = offset ?? 0;
      const wanted = length ?? buffer.length - start;
      if (plan.afterBytes > 0) {
        const n = Math.min(plan.afterBytes, wanted);
        plan.afterBytes -= n;
        return real.writeSync(fd, buffer, start, n);
      }
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
    }
    return (real.writeSync as (...a: unknown[]) => number)(fd, buffer, offset, length, ...rest);
  }) as typeof real.writeSync;
  return { ...real, default: { ...real, openSync, writeSync }, openSync, writeSync };
});

// Test files share module instances (isolate: false): the store is loaded afresh here so that it
// sees the mocked node:fs even when another file in this worker loaded it first.
let JournalRunStore: typeof import('groundswell/durable').JournalRunStore;
let RunStoreError: typeof import('groundswell/durable').RunStoreError;
beforeAll(async () => {
  vi.resetModules();
  ({ JournalRunStore, RunStoreError } = await import('groundswell/durable'));
});

const root = fileURLToPath(new URL('../..', import.meta.url));
const signalChild = fileURLToPath(new URL('./signal-child.ts', import.meta.url));
const dirs: string[] = [];
const mounts: string[] = [];

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'groundswell-faults-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  faults.plan = undefined;
  for (const mount of mounts.splice(0)) spawnSync('umount', [mount]);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const step = (key: string, value: unknown = key) => ({ key, status: 'completed' as const, value, at: 1 });

describe('a write cut short (full disk)', () => {
  it('a journal append that fails part-way leaves the journal as it was, names the run, and later appends are kept', async () => {
    const dir = freshDir();
    const store = new JournalRunStore({ dir, fsync: 'off' });
    await store.createRun({ id: 'pay', rootName: 'W' });
    await store.putStep('pay', step('a'));
    const before = statSync(join(dir, 'pay', 'journal.log')).size;
    faults.plan = { path: 'journal.log', afterBytes: 20 };
    const failed = await store.putStep('pay', step('b', 'x'.repeat(5_000))).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(RunStoreError);
    expect((failed as Error).message).toContain('Run "pay"');
    expect((failed as Error).message).toContain('ENOSPC');
    expect((failed as Error).cause).toMatchObject({ code: 'ENOSPC' });
    expect(statSync(join(dir, 'pay', 'journal.log')).size).toBe(before);
    faults.plan = undefined;
    // Acknowledged after the failure: must survive a reopen, and the failed key may be written again.
    await expect(store.putStep('pay', step('c'))).resolves.toBe(true);
    await expect(store.putStep('pay', step('b'))).resolves.toBe(true);
    await store.close();
    const reopened = new JournalRunStore({ dir });
    const loaded = await reopened.loadRun('pay');
    expect(loaded.steps.map((s) => s.key)).toEqual(['a', 'c', 'b']);
    expect(reopened.recovered).toEqual([]);
  });

  it('an event batch that fails part-way does not take sequence numbers, and later batches are kept', async () => {
    const dir = freshDir();
    const store = new JournalRunStore({ dir, fsync: 'off' });
    await store.createRun({ id: 'r', rootName: 'W' });
    await store.appendEvents('r', [{ n: 1 }]);
    faults.plan = { path: 'events.log', afterBytes: 7 };
    await expect(store.appendEvents('r', [{ n: 2, pad: 'y'.repeat(1_000) }])).rejects.toBeInstanceOf(RunStoreError);
    faults.plan = undefined;
    await expect(store.appendEvents('r', [{ n: 3 }])).resolves.toEqual({ first: 2, last: 2 });
    await store.close();
    const events = await new JournalRunStore({ dir }).readEvents('r');
    expect(events).toEqual([
      { seq: 1, event: { n: 1 } },
      { seq: 2, event: { n: 3 } },
    ]);
  });

  it('a signal that cannot be written whole is not stored and says so', async () => {
    const dir = freshDir();
    const store = new JournalRunStore({ dir, fsync: 'off' });
    await store.createRun({ id: 'r', rootName: 'W' });
    await store.putSignal('r', { name: 'ok', value: 1, at: 1 });
    faults.plan = { path: '.tmp', afterBytes: 10 };
    const failed = await store.putSignal('r', { name: 'lost', value: 'z'.repeat(10_000), at: 2 }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(RunStoreError);
    expect((failed as Error).message).toMatch(/Run "r".*ENOSPC.*nothing was stored/s);
    faults.plan = undefined;
    await store.putSignal('r', { name: 'later', value: 3, at: 3 });
    expect((await store.loadRun('r')).signals.map((s) => s.name)).toEqual(['ok', 'later']);
    expect(fs.readdirSync(join(dir, 'r', 'signals')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
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

describe('a real full file system', () => {
  it('fills a 512 KiB tmpfs with steps, events and signals: every acknowledged record is there after a reopen', async (context) => {
    const fsys = smallFileSystem(512);
    if ('skip' in fsys) {
      console.warn(`skipped: ${fsys.skip}`);
      context.skip();
      return;
    }
    const dir = join(fsys.dir, 'runs');
    const store = new JournalRunStore({ dir, fsync: 'checkpoints' });
    await store.createRun({ id: 'full', rootName: 'W' });
    // Room to free later: the disk is full of this, not only of the run.
    writeFileSync(join(fsys.dir, 'ballast'), Buffer.alloc(200 * 1024));
    const acked = { steps: [] as string[], events: 0, signals: [] as string[] };
    let failures = 0;
    const attempt = async (i: number): Promise<void> => {
      const pad = 'v'.repeat(3_000 + ((i * 1_237) % 9_000));
      try {
        if (await store.putStep('full', step(`s${i}`, pad))) acked.steps.push(`s${i}`);
      } catch (error) {
        expect(error).toBeInstanceOf(RunStoreError);
        failures += 1;
      }
      try {
        await store.appendEvents('full', [{ i, pad: pad.slice(0, 500) }]);
        acked.events += 1;
      } catch (error) {
        expect(error).toBeInstanceOf(RunStoreError);
        failures += 1;
      }
      try {
        await store.putSignal('full', { name: `g${i}`, value: pad.slice(0, 2_000), at: i });
        acked.signals.push(`g${i}`);
      } catch (error) {
        expect(error).toBeInstanceOf(RunStoreError);
        failures += 1;
      }
    };
    let i = 0;
    for (; failures < 12 && i < 2_000; i += 1) await attempt(i);
    expect(failures).toBeGreaterThan(0);
    // Space comes back: what is acknowledged now must follow the failed writes without loss.
    rmSync(join(fsys.dir, 'ballast'));
    const afterFree = i + 5;
    for (; i < afterFree; i += 1) await attempt(i);
    await store.close();
    const reopened = new JournalRunStore({ dir });
    const loaded = await reopened.loadRun('full');
    expect(loaded.steps.map((s) => s.key)).toEqual(acked.steps);
    expect(loaded.signals.map((s) => s.name)).toEqual(acked.signals);
    const events = await reopened.readEvents('full');
    expect(events.length).toBe(acked.events);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: acked.events }, (_, n) => n + 1));
    expect(reopened.recovered).toEqual([]);
    console.info(`full file system: ${failures} writes refused, ${acked.steps.length} steps, ${acked.events} event batches, ${acked.signals.length} signals acknowledged, 0 lost`);
  });
});

function spawnSignalChild(args: string[]): { done: Promise<{ acked: number; code: number | null; stderr: string }>; ready: Promise<void> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', signalChild, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  proc.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes('ready\n')) onReady();
  });
  proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ acked: number; code: number | null; stderr: string }>((resolve) =>
    proc.on('close', (code) => {
      onReady();
      resolve({ acked: stdout.split('\n').filter((line) => line.startsWith('acked ')).length, code, stderr });
    }),
  );
  return { done, ready };
}

describe('signals from several processes at once', () => {
  it('a signal another process is still writing is never cut by a second sender', async () => {
    const dir = freshDir();
    const store = new JournalRunStore({ dir, fsync: 'off' });
    await store.createRun({ id: 'r', rootName: 'W' });
    // Another process's record, half in the file: what a second sender sees in the middle of a write(2).
    const frame = encodeFrame(JSON.stringify({ name: 'slow', value: 's'.repeat(100_000), at: 1 }));
    const log = join(dir, 'r', 'signals.log');
    writeFileSync(log, frame.subarray(0, 40_000));
    await store.putSignal('r', { name: 'quick', value: 1, at: 2 });
    // The first process's write(2) completes after the second sender resolved.
    fs.appendFileSync(log, frame.subarray(40_000));
    const names = (await new JournalRunStore({ dir }).loadRun('r')).signals.map((s) => s.name);
    expect(names.sort()).toEqual(['quick', 'slow']);
  });

  it('3 processes sending large signals concurrently: every acknowledged signal is stored whole, in order per sender', async () => {
    const dir = freshDir();
    const store = new JournalRunStore({ dir, fsync: 'off' });
    await store.createRun({ id: 'r', rootName: 'W' });
    const writers = ['a', 'b', 'c'];
    const count = 20;
    const children = writers.map((writer) => spawnSignalChild([dir, 'r', writer, String(count), String(256 * 1024)]));
    await Promise.all(children.map((c) => c.ready));
    writeFileSync(join(dir, 'go'), '');
    const results = await Promise.all(children.map((c) => c.done));
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0, acked: count });
    // A reader in the middle of it all must not have cut anything either: read after, in a new store.
    const loaded = await new JournalRunStore({ dir }).loadRun('r');
    for (const writer of writers) {
      const mine = loaded.signals.filter((s) => s.name === `from-${writer}`).map((s) => (s.value as { i: number }).i);
      expect(mine).toEqual(Array.from({ length: count }, (_, n) => n));
    }
    for (const s of loaded.signals) {
      const value = s.value as { writer: string; pad: string };
      expect(value.pad).toBe(value.writer.repeat(value.pad.length));
    }
  }, 120_000);
});
