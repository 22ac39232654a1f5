import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkflow, resume, RunFinishedError, type Workflow, type WorkflowContext } from 'groundswell';
import { JournalRunStore, RunLeaseError, type RunStore } from 'groundswell/durable';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-race-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** `store` whose acquireLease waits for `gate` first: a resumer held up between its first read and the lease. */
function heldUp(store: RunStore, gate: () => Promise<void>): RunStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'acquireLease') {
        return async (...args: Parameters<RunStore['acquireLease']>) => {
          await gate();
          return target.acquireLease(...args);
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A run of "Payout" left running by a dead process after its first step settled. */
async function interruptedRun(store: RunStore, runId: string, payouts: string[]): Promise<() => Workflow<string>> {
  let die = true;
  const build = (): Workflow<string> =>
    createWorkflow({ name: 'Payout', durable: { store, runId } }, async (ctx: WorkflowContext) => {
      const amount = await ctx.step('prepare', () => 100);
      if (die) {
        die = false;
        throw new Error('killed');
      }
      return ctx.step('pay out', () => {
        payouts.push(runId);
        return `paid ${amount} (${payouts.length})`;
      });
    });
  await expect(build().run()).rejects.toThrow(/killed/);
  // What a SIGKILL leaves: the run still "running".
  await store.updateRun(runId, { status: 'running', error: null });
  return build;
}

describe('two resumers racing for one run', () => {
  it('a resumer held up until the first one finished reads after taking the lease: RunFinishedError, the step is not paid twice', async () => {
    const first = new JournalRunStore({ dir, fsync: 'off' });
    const second = new JournalRunStore({ dir, fsync: 'off' });
    const payouts: string[] = [];
    const build = await interruptedRun(first, 'pay-1', payouts);
    let finished: () => void = () => undefined;
    const firstDone = new Promise<void>((resolve) => (finished = resolve));
    const late = resume('pay-1', { store: heldUp(second, () => firstDone), workflows: { Payout: build } });
    const early = await resume<string>('pay-1', { store: first, workflows: { Payout: build } });
    finished();
    await expect(late).rejects.toBeInstanceOf(RunFinishedError);
    expect(early).toBe('paid 100 (1)');
    expect(payouts).toEqual(['pay-1']);
    expect((await first.getRun('pay-1'))?.result).toBe('paid 100 (1)');
    await first.close();
    await second.close();
  });

  it('100 seeded trials with random hold-ups: a settled step never runs twice and the stored result is the first one', async () => {
    let seed = 21;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    let twice = 0;
    for (let trial = 0; trial < 100; trial += 1) {
      const a = new JournalRunStore({ dir, fsync: 'off' });
      const b = new JournalRunStore({ dir, fsync: 'off' });
      const payouts: string[] = [];
      const runId = `pay-${trial}`;
      const build = await interruptedRun(a, runId, payouts);
      const delay = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 6)));
      const outcomes = await Promise.allSettled([
        resume<string>(runId, { store: heldUp(a, delay), workflows: { Payout: build } }),
        resume<string>(runId, { store: heldUp(b, delay), workflows: { Payout: build } }),
      ]);
      const results = outcomes.filter((o) => o.status === 'fulfilled');
      for (const o of outcomes) {
        if (o.status === 'rejected') expect(o.reason instanceof RunLeaseError || o.reason instanceof RunFinishedError, String(o.reason)).toBe(true);
      }
      expect(results.length).toBeGreaterThanOrEqual(1);
      if (payouts.length !== 1) twice += 1;
      const stored = await a.getRun(runId);
      expect(stored?.status).toBe('completed');
      expect(stored?.result).toBe('paid 100 (1)');
      await a.close();
      await b.close();
    }
    expect(twice).toBe(0);
  }, 120_000);
});
