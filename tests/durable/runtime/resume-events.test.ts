import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkflow, isSuspension, resume, signal, type Workflow } from 'groundswell';
import type { Lease, RunStore } from 'groundswell/durable';
import { eachRunStore } from '../../support/run-store-kinds.js';
import { clockAhead, storeAgain } from '../../support/store-again.js';

let store: RunStore;
const others: RunStore[] = [];
afterEach(async () => {
  for (const opened of others.splice(0)) await opened.close();
});

interface Stored {
  type: string;
  name?: string;
  resumed?: { steps: number; calls: number; signals: number };
}

/** A step, then a wait for "go", `waits` times, then a last step: resumed by each signal. */
function waits(count: number, onStep: (i: number) => void = () => undefined): (target: RunStore) => () => Workflow<number> {
  return (target) => () =>
    createWorkflow({ name: 'Waits', durable: { store: target, runId: 'w' } }, async (ctx) => {
      let total = 0;
      for (let i = 0; i < count; i += 1) {
        total += await ctx.step(`s${i}`, () => {
          onStep(i);
          return i;
        });
        total += (await ctx.waitFor('go', z.object({ n: z.number() }))).n;
      }
      return total + (await ctx.step('done', () => 0));
    });
}

/** The run's stored events, read by a store instance of its own. */
async function storedEvents(): Promise<Stored[]> {
  const reader = storeAgain(store);
  others.push(reader);
  const events = await reader.readEvents('w');
  expect(events.map((e) => e.seq)).toEqual(events.map((_e, i) => i + 1));
  return events.map((e) => e.event as Stored);
}

function countOf(events: readonly Stored[], type: string, name?: string): number {
  return events.filter((e) => e.type === type && (name === undefined || e.name === name)).length;
}

/** Starts the run and resumes it with one signal per wait; resolves to its result. */
async function signalEachWait(build: (target: RunStore) => () => Workflow<number>, count: number): Promise<unknown> {
  expect(isSuspension(await build(store)().run().catch((e: unknown) => e))).toBe(true);
  let result: unknown;
  for (let i = 0; i < count; i += 1) {
    result = await signal('w', 'go', { n: i }, { store, workflows: { Waits: build(store) } }).catch((e: unknown) => e);
    expect(isSuspension(result)).toBe(i < count - 1);
  }
  return result;
}

/**
 * `target` as seen by a process that dies once `state.dead` is set: nothing it writes after that
 * reaches the store, and its lease is neither renewed nor released (it lapses, as after SIGKILL).
 */
function mortal(target: RunStore, state: { dead: boolean }): RunStore {
  const untilDeath = (lease: Lease): Lease => ({
    runId: lease.runId,
    owner: lease.owner,
    token: lease.token,
    get expiresAt() {
      return lease.expiresAt;
    },
    renew: () => (state.dead ? Promise.resolve() : lease.renew()),
    release: () => (state.dead ? Promise.resolve() : lease.release()),
  });
  return new Proxy(target, {
    get(inner, property) {
      const value: unknown = Reflect.get(inner, property);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => Promise<unknown>;
      if (property === 'acquireLease') return async (...args: unknown[]) => untilDeath((await method.apply(inner, args)) as Lease);
      if (property === 'close' || String(property).startsWith('get') || String(property).startsWith('read') || String(property).startsWith('load') || property === 'listRuns') {
        return method.bind(inner);
      }
      return (...args: unknown[]) => (state.dead ? Promise.reject(new Error('the process died')) : method.apply(inner, args));
    },
  });
}

eachRunStore(
  (opened) => (store = opened),
  () => {
    describe('a resumed run stores only new events', () => {
      it('5 waits, resumed by each signal: 5 signalReceived, each step started and ended once, one start per process', async () => {
        const build = waits(5);
        expect(await signalEachWait(build, 5)).toBe(20);
        const events = await storedEvents();
        expect(countOf(events, 'signalReceived')).toBe(5);
        expect(countOf(events, 'waitStarted')).toBe(5);
        for (const step of ['s0', 's1', 's2', 's3', 's4', 'done']) {
          expect(countOf(events, 'stepStart', step), step).toBe(1);
          expect(countOf(events, 'stepEnd', step), step).toBe(1);
        }
        expect(countOf(events, 'stepReplayed')).toBe(0);
        // Each process: its start (a resumed one says what it replayed) and its end.
        const starts = events.filter((e) => e.type === 'workflowStart');
        expect(starts.map((e) => e.resumed)).toEqual([undefined, ...[1, 2, 3, 4, 5].map((k) => ({ steps: k, calls: 0, signals: k - 1 }))]);
        expect(countOf(events, 'workflowEnd')).toBe(6);
        expect(events).toHaveLength(34);
      });

      it('the same after a crash: what the dead process stored is not stored again, what it lost is', async () => {
        const state = { dead: false };
        // Dies in step s4: after s3 settled (with the signal taken before it), before anything else was stored.
        const build = waits(5, (i) => {
          if (i === 4 && !state.dead) state.dead = true;
        });
        expect(isSuspension(await build(store)().run().catch((e: unknown) => e))).toBe(true);
        for (let i = 0; i < 2; i += 1) {
          expect(isSuspension(await signal('w', 'go', { n: i }, { store, workflows: { Waits: build(store) } }).catch((e: unknown) => e))).toBe(true);
        }
        // Two signals waiting: the next process takes both, dying after the first one's step.
        await signal('w', 'go', { n: 2 }, { store });
        await signal('w', 'go', { n: 3 }, { store });
        const dying = mortal(store, state);
        await expect(resume('w', { store: dying, workflows: { Waits: build(dying) } })).rejects.toThrow();
        expect(state.dead).toBe(true);
        expect((await store.getRun('w'))?.status).toBe('running');

        // Another process, after the dead one's lease lapsed.
        const later = storeAgain(store, clockAhead(3_600_000));
        others.push(later);
        expect(isSuspension(await resume('w', { store: later, workflows: { Waits: build(later) } }).catch((e: unknown) => e))).toBe(true);
        expect(await signal('w', 'go', { n: 4 }, { store: later, workflows: { Waits: build(later) } })).toBe(20);

        const events = await storedEvents();
        expect(countOf(events, 'signalReceived')).toBe(5);
        for (const step of ['s0', 's1', 's2', 's3', 's4', 'done']) {
          expect(countOf(events, 'stepStart', step), step).toBe(1);
          expect(countOf(events, 'stepEnd', step), step).toBe(1);
        }
        // The dead process suspended nowhere and stored no end.
        expect(countOf(events, 'waitStarted')).toBe(4);
        expect(countOf(events, 'workflowEnd')).toBe(5);
        const starts = events.filter((e) => e.type === 'workflowStart');
        expect(starts.map((e) => e.resumed)).toEqual([undefined, ...[1, 2, 3, 4, 5].map((k) => ({ steps: k, calls: 0, signals: k - 1 }))]);
        expect(events).toHaveLength(32);
      });

      it('20 waits store 6 events per wait more than none: the log grows with the waits, not their square', async () => {
        const build = waits(20);
        expect(await signalEachWait(build, 20)).toBe(2 * 190);
        const events = await storedEvents();
        expect(countOf(events, 'signalReceived')).toBe(20);
        expect(countOf(events, 'stepStart')).toBe(21);
        // 5 for the first process, 6 for each that waited again, 5 for the last: 6 per wait + 4.
        expect(events).toHaveLength(6 * 20 + 4);
      }, 60_000);
    });
  },
);
