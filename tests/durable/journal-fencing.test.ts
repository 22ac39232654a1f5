import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

// P1's file operations go through these switches; every other fs function is the real one. Each
// hook fires once, just before (or after) the operation it names, which is how a pause of P1 at
// exactly that point is made deterministic: P2 (another process) runs inside the hook.
const hooks = vi.hoisted(() => ({
  beforeRename: undefined as undefined | ((from: string, to: string) => boolean),
  afterRename: undefined as undefined | ((from: string, to: string) => boolean),
  beforeWrite: undefined as undefined | ((path: string) => boolean),
  fullDisk: undefined as undefined | { path: string; afterBytes: number },
}));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const fdPaths = new Map<number, string>();
  const openSync = ((path: fs.PathLike, ...rest: unknown[]) => {
    const fd = (real.openSync as (...a: unknown[]) => number)(path, ...rest);
    fdPaths.set(fd, String(path));
    return fd;
  }) as typeof real.openSync;
  const writeSync = ((fd: number, buffer: NodeJS.ArrayBufferView, offset?: number, length?: number, ...rest: unknown[]) => {
    const path = fdPaths.get(fd) ?? '';
    const before = hooks.beforeWrite;
    if (before?.(path) === true) hooks.beforeWrite = undefined;
    const plan = hooks.fullDisk;
    if (plan !== undefined && path.endsWith(plan.path) && Buffer.isBuffer(buffer)) {
      // A short write of `afterBytes` bytes, then ENOSPC: a disk that fills up mid-record.
      const start = offset ?? 0;
      if (plan.afterBytes > 0) {
        const n = Math.min(plan.afterBytes, length ?? buffer.length - start);
        plan.afterBytes -= n;
        return real.writeSync(fd, buffer, start, n);
      }
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
    }
    return (real.writeSync as (...a: unknown[]) => number)(fd, buffer, offset, length, ...rest);
  }) as typeof real.writeSync;
  const renameSync = ((from: fs.PathLike, to: fs.PathLike) => {
    if (hooks.beforeRename?.(String(from), String(to)) === true) hooks.beforeRename = undefined;
    real.renameSync(from, to);
    if (hooks.afterRename?.(String(from), String(to)) === true) hooks.afterRename = undefined;
  }) as typeof real.renameSync;
  const mocked = { openSync, writeSync, renameSync };
  return { ...real, ...mocked, default: { ...real, ...mocked } };
});

// Test files share module instances (isolate: false): the store is loaded afresh here so that it
// sees the mocked node:fs even when another file in this worker loaded it first.
let durable: typeof import('groundswell/durable');
let groundswell: typeof import('groundswell');
beforeAll(async () => {
  vi.resetModules();
  durable = await import('groundswell/durable');
  groundswell = await import('groundswell');
});

const root = fileURLToPath(new URL('../..', import.meta.url));
const child = fileURLToPath(new URL('./fencing-child.ts', import.meta.url));
const dirs: string[] = [];

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'groundswell-fencing-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  hooks.beforeRename = undefined;
  hooks.afterRename = undefined;
  hooks.beforeWrite = undefined;
  hooks.fullDisk = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const step = (key: string, value: unknown = key) => ({ key, status: 'completed' as const, value, at: 1 });
const usage = { inputTokens: 1, outputTokens: 1, cacheCreationInputTokens: 0, cacheReadInputTokens: 0, costUsd: 0 };
const call = (key: string, answer: unknown) => ({ key, answer, usage, model: 'm', toolCalls: [], at: 1 });

/** P2, in its own process: takes the run over, settles p2#0 and p2#1, stores data and a tree, completes the run. */
function p2TakesOverAndCompletes(dir: string): { steps: string[]; events: { first: number; last: number } } {
  const done = spawnSync(process.execPath, ['--import', 'tsx', child, dir, 'r'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  if (done.status !== 0) throw new Error(`P2 failed: ${done.stderr}`);
  return JSON.parse(done.stdout) as { steps: string[]; events: { first: number; last: number } };
}

/** What a store that wrote nothing reads back. */
async function readBack(dir: string) {
  const fresh = new durable.JournalRunStore({ dir });
  try {
    const loaded = await fresh.loadRun('r');
    return {
      status: loaded.run.status,
      result: loaded.run.result,
      steps: loaded.steps.map((s) => s.key),
      data: loaded.data,
      tree: loaded.tree,
      events: (await fresh.readEvents('r')).map((e) => [e.seq, e.event]),
      listed: (await fresh.listRuns()).map((run) => [run.id, run.status]),
    };
  } finally {
    await fresh.close();
  }
}

const P2_LEFT = { status: 'completed', result: 'p2', data: { plan: 'p2' }, tree: { by: 'p2' }, listed: [['r', 'completed']] };

async function p1Holding(dir: string) {
  const store = new durable.JournalRunStore({ dir, fsync: 'off' });
  await store.createRun({ id: 'r', rootName: 'W' });
  const lease = await store.acquireLease('r', 'p1', 60_000);
  expect(await store.settleStep('r', step('p1#0'), [{ by: 'p1' }], lease)).toEqual({ written: true, events: { first: 1, last: 1 } });
  await store.putData('r', 'plan', 'p1', lease);
  return { store, lease };
}

async function refusal(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    (value) => new Error(`resolved ${JSON.stringify(value)} where a refusal was expected`),
    (error: unknown) => error as Error,
  );
  expect(outcome, outcome.message).toBeInstanceOf(durable.RunFencedError);
  return outcome;
}

describe('a holder paused past its lease, on plain files', () => {
  it('paused between staging a rewrite of run.json and renaming it: the rename lands nowhere, P2’s run.json stays', async () => {
    const dir = freshDir();
    const { store, lease } = await p1Holding(dir);
    let p2: ReturnType<typeof p2TakesOverAndCompletes> | undefined;
    // P1 has its new run.json whole in a temp file; before its rename, P2 takes the run over and completes it.
    hooks.beforeRename = (from, to) => {
      if (to !== join(dir, 'r', 'run.json') || !from.includes(`${sep}holders${sep}1${sep}`)) return false;
      p2 = p2TakesOverAndCompletes(dir);
      return true;
    };
    const refused = await refusal(store.updateRun('r', { status: 'failed', error: { name: 'Error', message: 'p1 gave up' } }, lease));
    expect(p2?.steps).toEqual(['p1#0']);
    expect((refused as InstanceType<typeof durable.RunFencedError>).holder).toBe('p2');
    expect(refused.message).toContain('"p1"');
    expect(refused.message).toContain('"p2"');
    // Its tree and its renewal are refused the same way; nothing of them lands either.
    await refusal(store.putTree('r', { by: 'p1' }, lease));
    await refusal(lease.renew());
    expect(await readBack(dir)).toEqual({ ...P2_LEFT, steps: ['p1#0', 'p2#0', 'p2#1'], events: [[1, { by: 'p1' }], [2, { by: 'p2' }]] });
    expect(JSON.parse(readFileSync(join(dir, 'r', 'holders', '2', 'lease.json'), 'utf8'))).toMatchObject({ owner: 'p2' });
    expect(readdirSync(join(dir, 'r')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    await store.close();
  }, 60_000);

  it('paused just before an append: the record lands after the seal, is never read, and P1 is told', async () => {
    const dir = freshDir();
    const { store, lease } = await p1Holding(dir);
    const segment = join(dir, 'r', 'holders', '1.journal.log');
    hooks.beforeWrite = (path) => {
      if (path !== segment) return false;
      p2TakesOverAndCompletes(dir);
      return true;
    };
    await refusal(store.putStep('r', step('p1#late'), lease));
    // The bytes are in P1's own file, past its seal: that is all that hides them.
    const sealed = JSON.parse(readFileSync(join(dir, 'r', 'holders', '1.end'), 'utf8')) as { journal: number };
    expect(statSync(segment).size).toBeGreaterThan(sealed.journal);
    // Nothing more is written through the fenced generation.
    const sizes = () => ['1.journal.log', '1.events.log'].map((name) => statSync(join(dir, 'r', 'holders', name)).size);
    const before = sizes();
    await refusal(store.settleStep('r', step('p1#later'), [{ by: 'p1, late' }], lease));
    await refusal(store.appendEvents('r', [{ by: 'p1, late' }], lease));
    await refusal(store.putCall('r', call('c', 1), lease));
    await refusal(store.putData('r', 'plan', 'p1, late', lease));
    expect(sizes()).toEqual(before);
    expect(await readBack(dir)).toEqual({ ...P2_LEFT, steps: ['p1#0', 'p2#0', 'p2#1'], events: [[1, { by: 'p1' }], [2, { by: 'p2' }]] });
    await store.close();
  }, 60_000);

  it('a fenced holder’s append that fails on a full disk cuts only its own file, never P2’s records', async () => {
    const dir = freshDir();
    const { store, lease } = await p1Holding(dir);
    p2TakesOverAndCompletes(dir);
    const run = join(dir, 'r');
    const files = () => readdirSync(run, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name))
      .sort()
      .map((path) => [path.slice(run.length), readFileSync(path).toString('base64')]);
    const before = files();
    hooks.fullDisk = { path: 'journal.log', afterBytes: 20 };
    const refused = await refusal(store.putStep('r', step('p1#late', 'x'.repeat(5_000)), lease));
    expect(refused.cause).toBeInstanceOf(durable.RunStoreError);
    expect((refused.cause as Error).message).toContain('ENOSPC');
    hooks.fullDisk = undefined;
    expect(files()).toEqual(before);
    expect(await readBack(dir)).toEqual({ ...P2_LEFT, steps: ['p1#0', 'p2#0', 'p2#1'], events: [[1, { by: 'p1' }], [2, { by: 'p2' }]] });
    await store.close();
  }, 60_000);

  it('acting between P2’s claim and its fence: what P1 is told it wrote, every reader sees; what it is refused, none does', async () => {
    const dir = freshDir();
    const { store, lease } = await p1Holding(dir);
    const p2 = new durable.JournalRunStore({ dir, fsync: 'off', clock: { now: () => Date.now() + 600_000 } });
    const p1Acts: Array<Promise<unknown>> = [];
    // P2 has claimed generation 2 and not yet fenced generation 1. The store's methods do their
    // file work before they first yield, so P1's calls below happen right here, in this order.
    hooks.afterRename = (_from, to) => {
      if (to !== join(dir, 'r', 'holders', '2')) return false;
      p1Acts.push(store.putStep('r', step('p1#between'), lease));
      p1Acts.push(store.updateRun('r', { status: 'failed' }, lease));
      p1Acts.push(lease.renew());
      p1Acts.push(store.putStep('r', step('p1#after'), lease));
      return true;
    };
    const taken = await p2.acquireLease('r', 'p2', 60_000);
    const outcomes = await Promise.all(p1Acts.map((act) => act.then((value) => value, (error: unknown) => error)));
    expect(outcomes[0]).toBe(true);
    for (const refused of outcomes.slice(1)) expect(refused).toBeInstanceOf(durable.RunFencedError);
    // P2 reads after its takeover: the step P1 was told it wrote is there, the refused one is not.
    expect((await p2.loadRun('r')).steps.map((s) => s.key)).toEqual(['p1#0', 'p1#between']);
    expect(await p2.putStep('r', step('p2#0'), taken)).toBe(true);
    const back = await readBack(dir);
    expect(back.steps).toEqual(['p1#0', 'p1#between', 'p2#0']);
    expect(back.status).toBe('running');
    await Promise.all([store.close(), p2.close()]);
  }, 60_000);
});

describe('runs stored before generations existed', () => {
  it('a run in the old layout lists, loads, honours its lease file, and is resumed into a new generation', async () => {
    const dir = freshDir();
    const clock = { t: 1_700_000_000_000, now: () => clock.t };
    // The old layout is what a store writes without any lease: run.json, journal.log, events.log at the top.
    const old = new durable.JournalRunStore({ dir, clock });
    await old.createRun({ id: 'r', rootName: 'W' });
    await old.settleStep('r', step('old#0'), [{ n: 1 }, { n: 2 }]);
    await old.putCall('r', call('call#0', 'a'));
    await old.putTree('r', { by: 'old' });
    await old.close();
    fs.writeFileSync(join(dir, 'r', 'lease.json'), JSON.stringify({ owner: 'old-worker', token: 't', pid: 1, host: 'elsewhere.example', expiresAt: clock.t + 1_000 }));
    const topLevel = () => ['journal.log', 'events.log'].map((name) => readFileSync(join(dir, 'r', name)).toString('base64'));
    const oldBytes = topLevel();

    const store = new durable.JournalRunStore({ dir, clock });
    expect((await store.listRuns()).map((run) => run.id)).toEqual(['r']);
    expect((await store.loadRun('r')).steps.map((s) => s.key)).toEqual(['old#0']);
    const held = await store.acquireLease('r', 'new-worker', 60_000).then(() => undefined, (error: unknown) => error);
    expect(held).toBeInstanceOf(durable.RunLeaseError);
    expect((held as InstanceType<typeof durable.RunLeaseError>).holder).toBe('old-worker');
    clock.t += 1_001;
    const lease = await store.acquireLease('r', 'new-worker', 60_000);
    const loaded = await store.loadRun('r');
    expect(loaded.steps.map((s) => s.key)).toEqual(['old#0']);
    expect(loaded.calls.map((c) => c.key)).toEqual(['call#0']);
    expect(await store.putStep('r', step('old#0', 'again'), lease)).toBe(false);
    expect(await store.settleStep('r', step('new#0'), [{ n: 3 }], lease)).toEqual({ written: true, events: { first: 3, last: 3 } });
    await store.updateRun('r', { status: 'completed', result: 'done' }, lease);
    await store.close();

    expect(topLevel()).toEqual(oldBytes);
    const fresh = new durable.JournalRunStore({ dir });
    const back = await fresh.loadRun('r');
    expect(back.steps.map((s) => [s.key, s.value])).toEqual([['old#0', 'old#0'], ['new#0', 'new#0']]);
    expect(back.tree).toEqual({ by: 'old' });
    expect((await fresh.readEvents('r')).map((e) => [e.seq, e.event])).toEqual([[1, { n: 1 }], [2, { n: 2 }], [3, { n: 3 }]]);
    expect((await fresh.listRuns()).map((run) => [run.id, run.status])).toEqual([['r', 'completed']]);
    await fresh.close();
  });

  it('a suspended run moved back to the old layout is resumed by a signal and completes without running its steps again', async () => {
    const dir = freshDir();
    let drafts = 0;
    const release = (store: import('groundswell/durable').RunStore) =>
      groundswell.createWorkflow({ name: 'Release', durable: { store, runId: 'r' } }, async (ctx) => {
        const notes = await ctx.step('draft', () => {
          drafts += 1;
          return 'notes';
        });
        const decision = await ctx.step('approve', () => ctx.waitFor('approval', z.object({ ok: z.boolean() })));
        return decision.ok ? notes : 'held';
      });
    const first = new durable.JournalRunStore({ dir });
    expect(groundswell.isSuspension(await release(first).run().catch((error: unknown) => error))).toBe(true);
    await first.close();
    // What an earlier version left: the same records in the top-level files, no holders/.
    const run = join(dir, 'r');
    expect(readdirSync(join(run, 'holders')).filter((name) => name.endsWith('.log')).sort()).toEqual(['1.events.log', '1.journal.log']);
    expect(fs.existsSync(join(run, 'journal.log'))).toBe(false);
    renameSync(join(run, 'holders', '1.journal.log'), join(run, 'journal.log'));
    renameSync(join(run, 'holders', '1.events.log'), join(run, 'events.log'));
    rmSync(join(run, 'holders'), { recursive: true });
    const eventsBefore = (await new durable.JournalRunStore({ dir }).readEvents('r')).length;

    const store = new durable.JournalRunStore({ dir });
    expect((await store.listRuns()).map((r) => [r.id, r.status])).toEqual([['r', 'suspended']]);
    expect(await groundswell.signal('r', 'approval', { ok: true }, { store, workflows: { Release: () => release(store) } })).toBe('notes');
    expect(drafts).toBe(1);
    await store.close();
    const fresh = new durable.JournalRunStore({ dir });
    expect((await fresh.getRun('r'))?.status).toBe('completed');
    const events = await fresh.readEvents('r');
    expect(events.length).toBeGreaterThan(eventsBefore);
    expect(events.map((e) => e.seq)).toEqual(events.map((_e, i) => i + 1));
    await fresh.close();
  }, 60_000);
});
