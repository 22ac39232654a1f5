import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from 'groundswell';
import { JournalRunStore, RunLeaseError, RunStoreCorruptError, type RecoveredTail } from 'groundswell/durable';
import { runStoreContract, TestClock } from './run-store-contract.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const child = fileURLToPath(new URL('./journal-child.ts', import.meta.url));
const dirs: string[] = [];

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'groundswell-runs-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

runStoreContract('JournalRunStore', async () => {
  const dir = freshDir();
  const clock = new TestClock();
  const store = new JournalRunStore({ dir, clock, fsync: 'off' });
  return {
    store,
    clock,
    reopen: async () => new JournalRunStore({ dir, clock }),
    cleanup: () => store.close(),
  };
});

/** One process (tsx as a loader, not its CLI, which would run the script in a grandchild a kill would miss). */
function spawnChild(args: string[]): ReturnType<typeof spawn> {
  return spawn(process.execPath, ['--import', 'tsx', child, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
}

function collect(proc: ReturnType<typeof spawn>): Promise<{ stdout: string; stderr: string; code: number | null }> {
  let stdout = '';
  let stderr = '';
  proc.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  proc.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => proc.on('close', (code) => resolve({ stdout, stderr, code })));
}

describe('JournalRunStore on disk', () => {
  it('defaults to .groundswell/runs under the working directory and validates its options', () => {
    expect(new JournalRunStore().dir).toBe(join(process.cwd(), '.groundswell', 'runs'));
    expect(() => new JournalRunStore({ fsync: 'sometimes' as never })).toThrow(UsageError);
    expect(() => new JournalRunStore({ dir: '' })).toThrow(UsageError);
  });

  it('a torn last record is skipped when read, cut off when the run is written again, and reported', async () => {
    const dir = freshDir();
    const store = new JournalRunStore({ dir, fsync: 'off' });
    await store.createRun({ id: 'r', rootName: 'W' });
    for (let i = 0; i < 5; i += 1) await store.putStep('r', { key: `s${i}`, status: 'completed', value: i, at: i });
    await store.close();
    const journal = join(dir, 'r', 'journal.log');
    const full = statSync(journal).size;
    truncateSync(journal, full - 3);

    const seen: RecoveredTail[] = [];
    const reopened = new JournalRunStore({ dir, fsync: 'off', onRecover: (tail) => seen.push(tail) });
    expect((await reopened.loadRun('r')).steps.map((s) => s.key)).toEqual(['s0', 's1', 's2', 's3']);
    expect(seen).toEqual([expect.objectContaining({ file: journal, truncated: false })]);
    // Writing again cuts the torn record off first, so the new record does not follow garbage.
    expect(await reopened.putStep('r', { key: 's4', status: 'completed', value: 'again', at: 9 })).toBe(true);
    expect(reopened.recovered.at(-1)).toEqual(expect.objectContaining({ file: journal, truncated: true, bytes: seen[0]?.bytes }));
    expect((await reopened.loadRun('r')).steps.map((s) => [s.key, s.value])).toEqual([
      ['s0', 0],
      ['s1', 1],
      ['s2', 2],
      ['s3', 3],
      ['s4', 'again'],
    ]);
    await reopened.close();
  });

  it('zeros after the last record (a power loss) count as a torn tail', async () => {
    const dir = freshDir();
    const store = new JournalRunStore({ dir, fsync: 'off' });
    await store.createRun({ id: 'r', rootName: 'W' });
    await store.putStep('r', { key: 'a', status: 'completed', value: 1, at: 1 });
    appendFileSync(join(dir, 'r', 'journal.log'), Buffer.alloc(4096));
    const reopened = new JournalRunStore({ dir });
    expect((await reopened.loadRun('r')).steps.map((s) => s.key)).toEqual(['a']);
    expect(reopened.recovered).toHaveLength(1);
    await Promise.all([store.close(), reopened.close()]);
  });

  it('a flipped byte in a record before the last is refused, naming the file and the record', async () => {
    const dir = freshDir();
    const store = new JournalRunStore({ dir, fsync: 'off' });
    await store.createRun({ id: 'r', rootName: 'W' });
    for (let i = 0; i < 3; i += 1) await store.putStep('r', { key: `s${i}`, status: 'completed', value: 'v'.repeat(100), at: i });
    await store.close();
    const journal = join(dir, 'r', 'journal.log');
    for (const at of [20, 3]) {
      // 20: inside the first record's payload; 3: inside its length (the header checksum catches it).
      const bytes = readFileSync(journal);
      const damaged = Buffer.from(bytes);
      damaged[at] = (damaged[at] ?? 0) ^ 0x01;
      writeFileSync(journal, damaged);
      const reopened = new JournalRunStore({ dir });
      const error = await reopened.loadRun('r').then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(RunStoreCorruptError);
      expect((error as RunStoreCorruptError).file).toBe(journal);
      expect((error as Error).message).toMatch(/record 1 at byte 0/);
      const writeError = await reopened.putStep('r', { key: 'new', status: 'completed', at: 1 }).then(() => undefined, (e: unknown) => e);
      expect(writeError).toBeInstanceOf(RunStoreCorruptError);
      expect(readFileSync(journal)).toEqual(damaged);
      expect(reopened.recovered).toEqual([]);
      await reopened.close();
      writeFileSync(journal, bytes);
    }
  });

  it('a process killed with SIGKILL while appending: every record before the torn one is there', async () => {
    const dir = freshDir();
    const store = new JournalRunStore({ dir, fsync: 'off' });
    await store.createRun({ id: 'r', rootName: 'W' });
    await store.close();
    const proc = spawnChild(['append', dir, 'r']);
    const done = collect(proc);
    const journal = join(dir, 'r', 'journal.log');
    // Kill once a good number of records are down, mid-loop.
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        let size = 0;
        try {
          size = statSync(journal).size;
        } catch {
          // Not created yet.
        }
        if (size > 400_000) {
          clearInterval(timer);
          proc.kill('SIGKILL');
          resolve();
        }
      }, 5);
      proc.on('exit', () => {
        clearInterval(timer);
        reject(new Error('the child ended before it was killed'));
      });
    });
    const { stderr } = await done;
    expect(stderr).toBe('');

    const reopened = new JournalRunStore({ dir });
    const { steps } = await reopened.loadRun('r');
    expect(steps.length).toBeGreaterThan(50);
    steps.forEach((s, i) => {
      expect(s.key).toBe(`step-${i}`);
      expect((s.value as { i: number }).i).toBe(i);
    });
    const events = await reopened.readEvents('r');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.length === steps.length || events.length === steps.length - 1).toBe(true);
    // It goes on where the killed process stopped.
    expect(await reopened.putStep('r', { key: `step-${steps.length}`, status: 'completed', at: 0 })).toBe(true);
    expect(await reopened.appendEvents('r', [{ type: 'after' }])).toEqual({ first: events.length + 1, last: events.length + 1 });
    await reopened.close();
  }, 60_000);

  it('two processes racing for one lease: one wins, the other gets a RunLeaseError naming it', async () => {
    const dir = freshDir();
    const store = new JournalRunStore({ dir });
    await store.createRun({ id: 'r', rootName: 'W' });
    await store.close();
    const procs = ['alpha', 'beta'].map((owner) => spawnChild(['lease', dir, 'r', owner]));
    const lines = procs.map((proc) => {
      const seen: string[] = [];
      proc.stdout?.on('data', (chunk: Buffer) => seen.push(...chunk.toString().split('\n').filter(Boolean)));
      return seen;
    });
    const runs = procs.map(collect);
    const until = async (test: () => boolean): Promise<void> => {
      while (!test()) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    // Both loaded (tsx startup can take seconds on a busy machine), then both go at once.
    await until(() => lines.every((seen) => seen.includes('ready')));
    writeFileSync(join(dir, 'go'), '');
    await until(() => lines.every((seen) => seen.length >= 2));
    writeFileSync(join(dir, 'done'), '');
    const finished = await Promise.all(runs);
    expect(finished.map((r) => r.stderr)).toEqual(['', '']);
    const outcomes = lines.map((seen) => seen[1]).sort();
    const winner = (JSON.parse(readFileSync(join(dir, 'r', 'holders', '1', 'lease.json'), 'utf8')) as { owner: string }).owner;
    expect(outcomes).toEqual([`refused by ${winner}`, 'won'].sort());
  }, 60_000);

  it('a lease of a dead process on this host is taken over before it expires', async () => {
    const dir = freshDir();
    const store = new JournalRunStore({ dir });
    await store.createRun({ id: 'r', rootName: 'W' });
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const lease = { owner: 'crashed', token: 't', pid: Number(dead.stdout), host: hostname(), expiresAt: Date.now() + 3_600_000 };
    writeFileSync(join(dir, 'r', 'lease.json'), JSON.stringify(lease));
    const taken = await store.acquireLease('r', 'rescuer', 60_000);
    expect(taken.owner).toBe('rescuer');
    // A live holder (this very process) is not taken over.
    const refused = await store.acquireLease('r', 'third', 60_000).then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(RunLeaseError);
    expect((refused as RunLeaseError).holder).toBe('rescuer');
    // Another host's lease is judged by its expiry only.
    writeFileSync(join(dir, 'r', 'holders', '1', 'lease.json'), JSON.stringify({ ...lease, host: 'elsewhere.example' }));
    expect(await store.acquireLease('r', 'rescuer-2', 60_000).then(() => undefined, (e: unknown) => e)).toBeInstanceOf(RunLeaseError);
    await store.close();
  });

  it('a run folder without run.json (a creation cut short) is not listed and the id can be created', async () => {
    const dir = freshDir();
    const store = new JournalRunStore({ dir });
    await store.createRun({ id: 'done', rootName: 'W' });
    rmSync(join(dir, 'done', 'run.json'));
    expect(await store.listRuns()).toEqual([]);
    expect((await store.createRun({ id: 'done', rootName: 'W' })).id).toBe('done');
    await store.close();
  });
});
