import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkflow, resume, type Workflow } from 'groundswell';
import { JournalRunStore, type RunStore } from 'groundswell/durable';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-resume-scale-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** `store` recording the size of every event batch appended through it. */
function counting(store: RunStore, batches: number[]): RunStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'appendEvents') {
        return (runId: string, events: readonly unknown[]) => {
          batches.push(events.length);
          return target.appendEvents(runId, events);
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('resuming a long run', () => {
  it('writes the replayed steps\u2019 events in bounded batches, not all at the end, and replays every step', async () => {
    const steps = 4_000;
    const store = new JournalRunStore({ dir, fsync: 'off' });
    let crash = true;
    let ran = 0;
    const build = (target: RunStore) => (): Workflow<number> =>
      createWorkflow({ name: 'Long', durable: { store: target, runId: 'long' } }, async (ctx) => {
        let total = 0;
        for (let i = 0; i < steps; i += 1) {
          total += await ctx.step(`s${i % 10}`, () => {
            ran += 1;
            return i;
          });
        }
        if (crash) {
          crash = false;
          throw new Error('crash');
        }
        return total;
      });
    await expect(build(store)().run()).rejects.toThrow(/crash/);
    await store.updateRun('long', { status: 'running', error: null });
    const batches: number[] = [];
    const resumeStore = counting(new JournalRunStore({ dir, fsync: 'off' }), batches);
    const total = await resume<number>('long', { store: resumeStore, workflows: { Long: build(resumeStore) } });
    expect(total).toBe((steps * (steps - 1)) / 2);
    expect(ran).toBe(steps);
    // Three events per replayed step: held until the end they would be one batch of 12,000.
    expect(batches.length).toBeGreaterThan(5);
    expect(Math.max(...batches)).toBeLessThanOrEqual(1_100);
    const events = await store.readEvents('long');
    expect(events.map((e) => e.seq)).toEqual(events.map((_e, i) => i + 1));
    await store.close();
  });
});
