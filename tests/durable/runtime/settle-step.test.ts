import { expect, it } from 'vitest';
import { createWorkflow, type Workflow } from 'groundswell';
import { RunStoreError, RunValueError, type RunStore } from 'groundswell/durable';
import { eachRunStore } from '../../support/run-store-kinds.js';

/** `store` with `override` in place of its own methods; `settleStep: undefined` makes it a store written without one. */
function altered(store: RunStore, override: Partial<Record<keyof RunStore, unknown>>): RunStore {
  return new Proxy(store, {
    has: (target, property) => (property in override ? override[property as keyof RunStore] !== undefined : property in target),
    get(target, property) {
      if (property in override) return override[property as keyof RunStore];
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function pipeline(store: RunStore, runId: string): Workflow<number> {
  return createWorkflow({ name: 'Pipeline', durable: { store, runId } }, async (ctx) => {
    let total = 0;
    for (let i = 0; i < 4; i += 1) total += await ctx.step(`s${i}`, () => i);
    return total;
  });
}

/** The types of a run's stored events, in order. */
async function eventTypes(store: RunStore, runId: string): Promise<string[]> {
  return (await store.readEvents(runId)).map((e) => (e.event as { type: string }).type);
}

let store: RunStore;
eachRunStore(
  (opened) => (store = opened),
  () => {
    it('a store without settleStep gets appendEvents and putStep, and stores the same steps and events', async () => {
      const plain = altered(store, { settleStep: undefined });
      expect(await pipeline(plain, 'two-calls').run()).toBe(6);
      expect(await pipeline(store, 'one-call').run()).toBe(6);
      const keys = async (id: string) => (await store.loadRun(id)).steps.map((s) => s.key);
      expect(await keys('two-calls')).toEqual(await keys('one-call'));
      expect(await eventTypes(store, 'two-calls')).toEqual(await eventTypes(store, 'one-call'));
      expect((await store.readEvents('one-call')).map((e) => e.seq)).toEqual((await store.readEvents('one-call')).map((_e, i) => i + 1));
    });

    it('a step result the store refuses fails the run, and the events before it are still stored', async () => {
      const wf = createWorkflow({ name: 'Mapper', durable: { store, runId: 'm' } }, async (ctx) => {
        await ctx.step('fine', () => 1);
        return ctx.step('index', () => new Map([['a', 1]]));
      });
      const error = (await wf.run().catch((e: unknown) => e)) as Error;
      expect(error.cause).toBeInstanceOf(RunValueError);
      expect((await store.loadRun('m')).steps.map((s) => s.key)).toHaveLength(1);
      // The refused settle wrote nothing, so its events went on alone: the step's start is there once.
      const types = await eventTypes(store, 'm');
      expect(types.filter((type) => type === 'stepStart')).toHaveLength(2);
      expect((await store.readEvents('m')).map((e) => e.seq)).toEqual(types.map((_t, i) => i + 1));
    });

    it('a settle the store fails fails the step with that error, and later steps are not stored', async () => {
      let calls = 0;
      const failing = altered(store, {
        settleStep: (...args: Parameters<NonNullable<RunStore['settleStep']>>) => {
          calls += 1;
          if (calls === 2) return Promise.reject(new RunStoreError('the connection was lost'));
          return (store.settleStep as NonNullable<RunStore['settleStep']>).apply(store, args);
        },
      });
      const error = (await pipeline(failing, 'lost').run().catch((e: unknown) => e)) as Error;
      expect(error.cause).toBeInstanceOf(RunStoreError);
      expect((error.cause as Error).message).toContain('the connection was lost');
      expect(calls).toBe(2);
      expect((await store.loadRun('lost')).steps.map((s) => s.key)).toHaveLength(1);
      const events = await store.readEvents('lost');
      expect(events.map((e) => e.seq)).toEqual(events.map((_e, i) => i + 1));
    });
  },
);
