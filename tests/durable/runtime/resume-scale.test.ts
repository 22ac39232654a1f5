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
  it('stores none of the replayed steps\u2019 events again, holds none of them, and replays every step', async () => {
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
    const before = (await store.readEvents('long')).length;
    const batches: number[] = [];
    const resumeStore = counting(new JournalRunStore({ dir, fsync: 'off' }), batches);
    const total = await resume<number>('long', { store: resumeStore, workflows: { Long: build(resumeStore) } });
    expect(total).toBe((steps * (steps - 1)) / 2);
    expect(ran).toBe(steps);
    // The first run stored the steps' events; the resume adds its start (what it replayed) and its end.
    expect(batches).toEqual([2]);
    const events = await store.readEvents('long');
    expect(events.map((e) => e.seq)).toEqual(events.map((_e, i) => i + 1));
    expect(events).toHaveLength(before + 2);
    expect(events.at(-2)?.event).toMatchObject({ type: 'workflowStart', resumed: { steps: steps, calls: 0, signals: 0 } });
    await store.close();
  });
});
