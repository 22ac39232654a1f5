import { describe, expect, it } from 'vitest';
import { createWorkflow, resume, RunFinishedError, type Workflow } from 'groundswell';
import type { Lease, RunStore } from 'groundswell/durable';
import { deferred } from '../../support/deferred.js';
import { RUN_STORE_KINDS } from '../../support/run-store-kinds.js';

/** `store`, holding the first acquireLease back until `go` resolves: a process paused right after creating the run. */
function pausedBeforeLease(store: RunStore, paused: () => void, go: Promise<void>): RunStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name !== 'acquireLease') return Reflect.get(target, name, receiver);
      return async (...args: Parameters<RunStore['acquireLease']>): Promise<Lease> => {
        paused();
        await go;
        return target.acquireLease(...args);
      };
    },
  });
}

describe.each(RUN_STORE_KINDS)('a process paused between creating a run and taking its lease, on the $name', (kind) => {
  it.skipIf(!kind.available)('finds the run another process ran meanwhile, and runs none of its steps again', async () => {
    const opened = await kind.open();
    try {
      const ran: string[] = [];
      const build = (store: RunStore, who: string) => (): Workflow<string> =>
        createWorkflow({ name: 'Once', durable: { store, runId: 'once' } }, async (ctx) => {
          await ctx.step('charge', async () => void ran.push(`${who} charge`));
          return 'charged';
        });
      const stopped = deferred();
      const go = deferred();
      const first = build(pausedBeforeLease(opened.store, () => stopped.resolve(), go.promise), 'p1')().run();
      first.catch(() => undefined);
      await stopped.promise;
      // Another process resumes the run the first one created, and completes it.
      expect(await resume<string>('once', { store: opened.store, workflows: { Once: build(opened.store, 'p2') } })).toBe('charged');
      go.resolve();
      await expect(first).rejects.toBeInstanceOf(RunFinishedError);
      expect(ran).toEqual(['p2 charge']);
    } finally {
      await opened.close();
    }
  });
});
