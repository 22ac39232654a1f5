import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkflow, ReplayMismatchError, resume, type Workflow } from 'groundswell';
import { JournalRunStore, RunLeaseError, RunValueError } from 'groundswell/durable';

let dir: string;
let store: JournalRunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-replay-edges-'));
  store = new JournalRunStore({ dir, fsync: 'off' });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What a killed process leaves: the run `running`, as if nobody had ended it. */
async function interrupt(runId: string): Promise<void> {
  await store.updateRun(runId, { status: 'running', error: null });
}

describe('replaying a durable run', () => {
  it('keys concurrent steps by the order the code starts them, so each gets its own result back', async () => {
    const ran: string[] = [];
    let fail = true;
    const build = (): Workflow<string[]> =>
      createWorkflow({ name: 'Fan', durable: { store, runId: 'fan' } }, async (ctx) => {
        const values = await Promise.all(
          ['a', 'b', 'c'].map((item, i) =>
            ctx.step('item', async () => {
              ran.push(item);
              // Settle in reverse order: keys must not depend on who finishes first.
              await new Promise((wake) => setTimeout(wake, 30 - i * 10));
              return item.toUpperCase();
            }),
          ),
        );
        if (fail) {
          fail = false;
          throw new Error('crash after the fan-out');
        }
        return values;
      });
    await expect(build().run()).rejects.toThrow(/crash after the fan-out/);
    await interrupt('fan');
    expect(await resume('fan', { store, workflows: { Fan: build } })).toEqual(['A', 'B', 'C']);
    expect(ran).toEqual(['a', 'b', 'c']);
  });

  it('reports a step whose code changed instead of replaying its old result', async () => {
    let version = 1;
    const build = (): Workflow<number> =>
      createWorkflow({ name: 'Versioned', durable: { store, runId: 'v' } }, async (ctx) => {
        const value = version === 1 ? await ctx.step('compute', () => 1) : await ctx.step('compute', () => 2 * 21);
        if (version === 1) throw new Error('stop');
        return value;
      });
    await expect(build().run()).rejects.toThrow(/stop/);
    await interrupt('v');
    version = 2;
    const error = await resume('v', { store, workflows: { Versioned: build } }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/changed since it was stored/);
    expect((error as { cause?: unknown }).cause).toBeInstanceOf(ReplayMismatchError);
  });

  it('refuses a step result JSON cannot hold, naming the problem', async () => {
    const wf = createWorkflow({ name: 'Mapper', durable: { store, runId: 'm' } }, (ctx) => ctx.step('index', () => new Map([['a', 1]])));
    const error = (await wf.run().catch((e: unknown) => e)) as Error;
    expect(error.cause).toBeInstanceOf(RunValueError);
    expect(error.message).toMatch(/Map/);
  });

  it('lets one process resume a run and refuses a second one while the first holds the lease', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    const build = (): Workflow<string> =>
      createWorkflow({ name: 'Slow', durable: { store, runId: 's' } }, async (ctx) => {
        if (first) {
          first = false;
          throw new Error('crash');
        }
        await ctx.step('wait', () => gate);
        return 'done';
      });
    await expect(build().run()).rejects.toThrow(/crash/);
    await interrupt('s');
    const winner = resume('s', { store, workflows: { Slow: build } });
    await new Promise((wake) => setTimeout(wake, 50));
    const other = new JournalRunStore({ dir, fsync: 'off' });
    try {
      await expect(resume('s', { store: other, workflows: { Slow: build } })).rejects.toBeInstanceOf(RunLeaseError);
    } finally {
      await other.close();
    }
    release();
    expect(await winner).toBe('done');
  });
});
