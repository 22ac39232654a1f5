import { describe, expect, it } from 'vitest';
import { UsageError } from 'groundswell';
import {
  RunExistsError,
  RunFencedError,
  RunLeaseError,
  RunNotFoundError,
  RunValueError,
  type CallRecord,
  type RunStore,
  type StepRecord,
} from 'groundswell/durable';

/** A settable clock shared by a store and its test. */
export class TestClock {
  constructor(public t = 1_700_000_000_000) {}
  now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface StoreHarness {
  store: RunStore;
  clock: TestClock;
  /** A second store instance over the same data (another process, or after a restart). */
  reopen(): Promise<RunStore>;
  cleanup(): Promise<void>;
}

const usage = { inputTokens: 12, outputTokens: 5, cacheCreationInputTokens: 0, cacheReadInputTokens: 3, costUsd: 0.0012 };

function step(key: string, value: unknown, at = 1): StepRecord {
  return { key, status: 'completed', value, fingerprint: 'f1', at };
}

function call(key: string, answer: unknown): CallRecord {
  return { key, answer, usage, model: 'claude-test', toolCalls: [{ name: 'read', input: { path: 'a' } }], at: 2 };
}

/** The store's `settleStep`, which every store of this repository has. */
function settleOf(store: RunStore): NonNullable<RunStore['settleStep']> {
  expect(store.settleStep).toBeTypeOf('function');
  return (store.settleStep as NonNullable<RunStore['settleStep']>).bind(store);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/**
 * The behaviour every `RunStore` shares, run against each store. `open` gives a fresh,
 * empty store (its own folder or schema) per test.
 */
export function runStoreContract(name: string, open: () => Promise<StoreHarness>, skip = false): void {
  const withStore = (body: (h: StoreHarness) => Promise<void>) => async () => {
    const harness = await open();
    try {
      await body(harness);
    } finally {
      await harness.cleanup();
    }
  };

  describe.skipIf(skip)(`RunStore contract: ${name}`, () => {
    it('creates a run once, reads it back, and refuses the same id again', withStore(async ({ store, clock }) => {
      const input = { ticket: 'T-1', tags: ['a', 'b'], nested: { z: 1, a: [1, 2, { b: null }] } };
      const run = await store.createRun({ id: 'run-1', rootName: 'Triage', input, codeVersion: 'v1' });
      expect(run).toEqual({ id: 'run-1', rootName: 'Triage', input, status: 'running', createdAt: clock.t, updatedAt: clock.t, codeVersion: 'v1' });
      expect(await store.getRun('run-1')).toEqual(run);
      expect(await store.getRun('missing')).toBeUndefined();
      const error = await rejection(store.createRun({ id: 'run-1', rootName: 'Other' }));
      expect(error).toBeInstanceOf(RunExistsError);
      expect((error as Error).message).toContain('run-1');
      expect((await store.getRun('run-1'))?.rootName).toBe('Triage');
    }));

    it('updates a run: a patch changes what it names, null clears, updatedAt moves', withStore(async ({ store, clock }) => {
      await store.createRun({ id: 'r', rootName: 'W' });
      clock.advance(10);
      const waiting = await store.updateRun('r', { status: 'suspended', waitingFor: { name: 'approval', since: clock.t, timeoutAt: clock.t + 1000 } });
      expect(waiting.status).toBe('suspended');
      expect(waiting.waitingFor).toEqual({ name: 'approval', since: clock.t, timeoutAt: clock.t + 1000 });
      expect(waiting.updatedAt).toBe(clock.t);
      clock.advance(5);
      const done = await store.updateRun('r', { status: 'completed', waitingFor: null, result: { ok: [1, 'two'] }, usage });
      expect(done).toEqual({ id: 'r', rootName: 'W', status: 'completed', createdAt: clock.t - 15, updatedAt: clock.t, result: { ok: [1, 'two'] }, usage });
      expect(await store.getRun('r')).toEqual(done);
      const failed = await store.updateRun('r', { status: 'failed', error: { name: 'WorkflowError', message: 'boom', cause: { name: 'Error', message: 'inner' } } });
      expect((await store.getRun('r'))?.error).toEqual(failed.error);
      expect(await rejection(store.updateRun('nope', { status: 'failed' }))).toBeInstanceOf(RunNotFoundError);
      expect(await rejection(store.updateRun('r', { status: 'paused' as never }))).toBeInstanceOf(UsageError);
    }));

    it('lists runs newest first, by one status or several, by root name, limited', withStore(async ({ store, clock }) => {
      for (const [id, root, status] of [
        ['a', 'X', 'completed'],
        ['b', 'Y', 'running'],
        ['c', 'X', 'suspended'],
        ['d', 'X', 'failed'],
      ] as const) {
        await store.createRun({ id, rootName: root, status });
        clock.advance(1);
      }
      expect((await store.listRuns()).map((r) => r.id)).toEqual(['d', 'c', 'b', 'a']);
      expect((await store.listRuns({ status: 'running' })).map((r) => r.id)).toEqual(['b']);
      expect((await store.listRuns({ status: ['suspended', 'running'] })).map((r) => r.id)).toEqual(['c', 'b']);
      expect((await store.listRuns({ rootName: 'X', limit: 2 })).map((r) => r.id)).toEqual(['d', 'c']);
      expect(await store.listRuns({ rootName: 'nobody' })).toEqual([]);
    }));

    it('writes a step or call key once: the second put is ignored and reports false', withStore(async ({ store }) => {
      await store.createRun({ id: 'r', rootName: 'W' });
      expect(await store.putStep('r', step('wf/fetch#0', { rows: 3 }))).toBe(true);
      expect(await store.putStep('r', step('wf/fetch#0', { rows: 999 }))).toBe(false);
      expect(await store.putStep('r', { key: 'wf/parse#0', status: 'failed', error: { name: 'Error', message: 'bad' }, at: 3 })).toBe(true);
      expect(await store.putStep('r', { key: 'wf/void#0', status: 'completed', at: 4 })).toBe(true);
      expect(await store.putCall('r', call('wf/ask#0', { answer: 'x' }))).toBe(true);
      expect(await store.putCall('r', call('wf/ask#0', { answer: 'y' }))).toBe(false);
      const loaded = await store.loadRun('r');
      expect(loaded.steps).toEqual([
        step('wf/fetch#0', { rows: 3 }),
        { key: 'wf/parse#0', status: 'failed', error: { name: 'Error', message: 'bad' }, at: 3 },
        { key: 'wf/void#0', status: 'completed', at: 4 },
      ]);
      expect(loaded.calls).toEqual([call('wf/ask#0', { answer: 'x' })]);
      // Still once after the run was suspended and resumed (the journal store closes its files then).
      await store.updateRun('r', { status: 'suspended' });
      await store.updateRun('r', { status: 'running' });
      expect(await store.putStep('r', step('wf/fetch#0', 'again'))).toBe(false);
      expect(await store.putCall('r', call('wf/ask#0', 'again'))).toBe(false);
      expect(await store.putStep('r', step('wf/after#0', 1))).toBe(true);
      expect(await store.appendEvents('r', [{ type: 'x' }])).toEqual({ first: 1, last: 1 });
    }));

    it('concurrent puts of the same key: exactly one is written', withStore(async ({ store }) => {
      await store.createRun({ id: 'r', rootName: 'W' });
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.putStep('r', step('same', i))));
      expect(results.filter(Boolean)).toHaveLength(1);
      const { steps } = await store.loadRun('r');
      expect(steps).toHaveLength(1);
      expect(steps[0]?.value).toBe(results.indexOf(true));
    }));

    it('numbers events per run from 1 and reads them after a sequence number, limited', withStore(async ({ store }) => {
      await store.createRun({ id: 'r', rootName: 'W' });
      await store.createRun({ id: 'other', rootName: 'W' });
      expect(await store.appendEvents('r', [{ type: 'stepStart' }, { type: 'stepEnd' }])).toEqual({ first: 1, last: 2 });
      expect(await store.appendEvents('other', [{ type: 'x' }])).toEqual({ first: 1, last: 1 });
      expect(await store.appendEvents('r', [])).toEqual({ first: 3, last: 2 });
      expect(await store.appendEvents('r', [{ type: 'a' }, { type: 'b' }, { type: 'c' }])).toEqual({ first: 3, last: 5 });
      expect((await store.readEvents('r')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(await store.readEvents('r', { after: 2, limit: 2 })).toEqual([
        { seq: 3, event: { type: 'a' } },
        { seq: 4, event: { type: 'b' } },
      ]);
      expect(await store.readEvents('r', { after: 5 })).toEqual([]);
    }));

    it('reads after any sequence number across many batches exactly the events after it', withStore(async ({ store }) => {
      await store.createRun({ id: 'r', rootName: 'W' });
      const all: Array<{ seq: number; event: unknown }> = [];
      for (let batch = 0; batch < 12; batch += 1) {
        const events = Array.from({ length: (batch % 4) + 1 }, (_, i) => ({ type: 'e', batch, i }));
        const { first } = await store.appendEvents('r', events);
        events.forEach((event, i) => all.push({ seq: first + i, event }));
      }
      for (let after = 0; after <= all.length; after += 1) {
        expect(await store.readEvents('r', { after })).toEqual(all.slice(after));
        expect(await store.readEvents('r', { after, limit: 3 })).toEqual(all.slice(after, after + 3));
      }
    }));

    it('settleStep: the events, then the step, resolving what appendEvents and putStep resolve', withStore(async ({ store, reopen }) => {
      const settle = settleOf(store);
      await store.createRun({ id: 'r', rootName: 'W' });
      expect(await settle('r', step('wf/a#0', 1), [{ type: 'stepStart' }, { type: 'stepEnd' }])).toEqual({ written: true, events: { first: 1, last: 2 } });
      // No events: the step alone, and the next sequence number.
      expect(await settle('r', step('wf/b#0', 2), [])).toEqual({ written: true, events: { first: 3, last: 2 } });
      expect(await store.appendEvents('r', [{ type: 'between' }])).toEqual({ first: 3, last: 3 });
      expect(await settle('r', step('wf/c#0', 3), [{ type: 'c' }])).toEqual({ written: true, events: { first: 4, last: 4 } });
      expect(await store.putStep('r', step('wf/c#0', 'again'))).toBe(false);
      const other = await reopen();
      try {
        for (const reader of [store, other]) {
          const loaded = await reader.loadRun('r');
          expect(loaded.steps).toEqual([step('wf/a#0', 1), step('wf/b#0', 2), step('wf/c#0', 3)]);
          expect(await reader.readEvents('r')).toEqual([
            { seq: 1, event: { type: 'stepStart' } },
            { seq: 2, event: { type: 'stepEnd' } },
            { seq: 3, event: { type: 'between' } },
            { seq: 4, event: { type: 'c' } },
          ]);
        }
      } finally {
        await other.close();
      }
    }));

    it('settleStep of a key already written (a second resumer): false, the first record kept, its events appended once', withStore(async ({ store, reopen }) => {
      const settle = settleOf(store);
      await store.createRun({ id: 'r', rootName: 'W' });
      expect(await settle('r', step('wf/pay#0', 'first'), [{ type: 'stepEnd', by: 'a' }])).toEqual({ written: true, events: { first: 1, last: 1 } });
      const second = await reopen();
      try {
        // The events say what the second process ran; the step's record stays the first one.
        expect(await settleOf(second)('r', step('wf/pay#0', 'second'), [{ type: 'stepEnd', by: 'b' }])).toEqual({ written: false, events: { first: 2, last: 2 } });
        expect(await settleOf(second)('r', step('wf/pay#0', 'third'), [])).toEqual({ written: false, events: { first: 3, last: 2 } });
      } finally {
        await second.close();
      }
      expect((await store.loadRun('r')).steps).toEqual([step('wf/pay#0', 'first')]);
      expect((await store.readEvents('r')).map((e) => e.event)).toEqual([{ type: 'stepEnd', by: 'a' }, { type: 'stepEnd', by: 'b' }]);
    }));

    it('concurrent settleStep of one key: exactly one step written, every event numbered once', withStore(async ({ store }) => {
      const settle = settleOf(store);
      await store.createRun({ id: 'r', rootName: 'W' });
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => settle('r', step('same', i), [{ i }, { i }])));
      expect(results.filter((r) => r.written)).toHaveLength(1);
      expect(results.flatMap((r) => [r.events.first, r.events.last]).sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
      const { steps } = await store.loadRun('r');
      expect(steps.map((s) => s.value)).toEqual([results.findIndex((r) => r.written)]);
      const events = await store.readEvents('r');
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
      for (const r of results) {
        const batch = events.filter((e) => e.seq >= r.events.first && e.seq <= r.events.last).map((e) => e.event);
        expect(new Set(batch.map((e) => JSON.stringify(e))).size).toBe(1);
      }
    }));

    it('settleStep on an unknown run is a RunNotFoundError and writes nothing; a refused value writes nothing', withStore(async ({ store }) => {
      const settle = settleOf(store);
      expect(await rejection(settle('ghost', step('k', 1), [{ type: 'x' }]))).toBeInstanceOf(RunNotFoundError);
      expect(await rejection(settle('ghost', step('k', 1), []))).toBeInstanceOf(RunNotFoundError);
      await store.createRun({ id: 'r', rootName: 'W' });
      const badStep = await rejection(settle('r', step('k', new Map()), [{ type: 'fine' }]));
      expect(badStep).toBeInstanceOf(RunValueError);
      expect((badStep as Error).message).toContain('Step "k"');
      const badEvent = await rejection(settle('r', step('k', 1), [{ type: 'fine' }, { bad: Number.NaN }]));
      expect(badEvent).toBeInstanceOf(RunValueError);
      expect((badEvent as Error).message).toContain('Event 1 of run "r"');
      expect(await rejection(settle('r', step('k', 1), 'nope' as never))).toBeInstanceOf(UsageError);
      expect((await store.loadRun('r')).steps).toEqual([]);
      expect(await store.readEvents('r')).toEqual([]);
      // Nothing was numbered either, and the key is still free.
      expect(await settle('r', step('k', 1), [{ type: 'fine' }])).toEqual({ written: true, events: { first: 1, last: 1 } });
    }));

    it('keeps signals in order, the latest data per name and the latest tree', withStore(async ({ store }) => {
      await store.createRun({ id: 'r', rootName: 'W' });
      expect((await store.loadRun('r')).tree).toBeUndefined();
      await store.putSignal('r', { name: 'approval', value: { approved: false }, at: 5 });
      await store.putSignal('r', { name: 'approval', value: { approved: true }, at: 6 });
      await store.putData('r', 'checkpoint', { reads: 1 });
      await store.putData('r', 'plan', '# Plan');
      await store.putData('r', 'checkpoint', { reads: 2 });
      await store.putTree('r', { root: { name: 'W', children: [] } });
      await store.putTree('r', { root: { name: 'W', children: [{ name: 'step' }] } });
      const loaded = await store.loadRun('r');
      expect(loaded.signals).toEqual([
        { name: 'approval', value: { approved: false }, at: 5 },
        { name: 'approval', value: { approved: true }, at: 6 },
      ]);
      expect(loaded.data).toEqual({ checkpoint: { reads: 2 }, plan: '# Plan' });
      expect(loaded.tree).toEqual({ root: { name: 'W', children: [{ name: 'step' }] } });
    }));

    it('every method on an unknown run is a RunNotFoundError', withStore(async ({ store }) => {
      const attempts: (() => Promise<unknown>)[] = [
        () => store.loadRun('ghost'),
        () => store.putStep('ghost', step('k', 1)),
        () => store.putCall('ghost', call('k', 1)),
        () => store.appendEvents('ghost', [{ type: 'x' }]),
        () => store.readEvents('ghost'),
        () => store.putSignal('ghost', { name: 's', value: 1, at: 1 }),
        () => store.putData('ghost', 'd', 1),
        () => store.putTree('ghost', {}),
        () => store.acquireLease('ghost', 'me', 1000),
      ];
      for (const attempt of attempts) expect(await rejection(attempt()), attempt.toString()).toBeInstanceOf(RunNotFoundError);
    }));

    it('a lease: one owner at a time, named in the error; expired leases are taken over', withStore(async ({ store, clock }) => {
      await store.createRun({ id: 'r', rootName: 'W' });
      const first = await store.acquireLease('r', 'worker-a', 1000);
      expect(first.owner).toBe('worker-a');
      expect(first.expiresAt).toBe(clock.t + 1000);
      const refused = await rejection(store.acquireLease('r', 'worker-b', 1000));
      expect(refused).toBeInstanceOf(RunLeaseError);
      expect((refused as RunLeaseError).holder).toBe('worker-a');
      expect((refused as RunLeaseError).expiresAt).toBe(first.expiresAt);
      expect((refused as Error).message).toContain('worker-a');
      expect((refused as Error).message).toContain(new Date(first.expiresAt).toISOString());
      // The same owner again renews rather than fails.
      const again = await store.acquireLease('r', 'worker-a', 1000);
      expect(again.owner).toBe('worker-a');
      clock.advance(500);
      await first.renew();
      expect(first.expiresAt).toBe(clock.t + 1000);
      clock.advance(1001);
      const second = await store.acquireLease('r', 'worker-b', 1000);
      expect(second.owner).toBe('worker-b');
      const lost = await rejection(first.renew());
      expect(lost).toBeInstanceOf(RunLeaseError);
      expect((lost as Error).message).toContain('worker-b');
      // Releasing a lost lease leaves the new owner's alone.
      await first.release();
      expect(await rejection(store.acquireLease('r', 'worker-c', 1000))).toBeInstanceOf(RunLeaseError);
      await second.release();
      await second.release();
      expect((await store.acquireLease('r', 'worker-c', 1000)).owner).toBe('worker-c');
    }));

    it('a holder whose lease was taken over writes nothing more: each of its writes is a RunFencedError and the run stays as the new holder left it', withStore(async ({ store, clock, reopen }) => {
      await store.createRun({ id: 'r', rootName: 'W' });
      const old = await store.acquireLease('r', 'worker-a', 1000);
      expect(old.token).toEqual(expect.any(String));
      // Under the current lease, every write goes through.
      expect(await store.putStep('r', step('s#0', 'a'), old)).toBe(true);
      expect(await settleOf(store)('r', step('s#1', 'a'), [{ by: 'a' }], old)).toEqual({ written: true, events: { first: 1, last: 1 } });
      expect(await store.putCall('r', call('c#0', 'a'), old)).toBe(true);
      expect(await store.appendEvents('r', [{ by: 'a' }], old)).toEqual({ first: 2, last: 2 });
      await store.putData('r', 'plan', 'a', old);
      await store.putTree('r', { by: 'a' }, old);
      await store.updateRun('r', { usage }, old);
      // An expired lease nobody took over still holds: the holder was slow, not replaced.
      clock.advance(1001);
      expect(await store.putStep('r', step('s#2', 'a'), old)).toBe(true);
      const other = await reopen();
      const fresh = await reopen();
      try {
        const taken = await other.acquireLease('r', 'worker-b', 1000);
        expect(taken.token).not.toBe(old.token);
        expect((await other.loadRun('r')).steps.map((s) => s.key)).toEqual(['s#0', 's#1', 's#2']);
        expect(await settleOf(other)('r', step('s#3', 'b'), [{ by: 'b' }], taken)).toEqual({ written: true, events: { first: 3, last: 3 } });
        await other.putData('r', 'plan', 'b', taken);
        await other.putTree('r', { by: 'b' }, taken);
        await other.updateRun('r', { status: 'completed', result: 'b' }, taken);

        const late: Array<[string, () => Promise<unknown>]> = [
          ['putStep', () => store.putStep('r', step('s#4', 'a'), old)],
          ['putStep of a key the new holder wrote', () => store.putStep('r', step('s#3', 'a'), old)],
          ['putCall', () => store.putCall('r', call('c#1', 'a'), old)],
          ['appendEvents', () => store.appendEvents('r', [{ by: 'a, late' }], old)],
          ['settleStep', () => settleOf(store)('r', step('s#5', 'a'), [{ by: 'a, late' }], old)],
          ['putData', () => store.putData('r', 'plan', 'a, late', old)],
          ['putTree', () => store.putTree('r', { by: 'a, late' }, old)],
          ['updateRun', () => store.updateRun('r', { status: 'failed', error: { name: 'Error', message: 'late' } }, old)],
        ];
        for (const [name, write] of late) {
          const refused = await rejection(write());
          expect(refused, name).toBeInstanceOf(RunFencedError);
          expect((refused as RunFencedError).holder, name).toBe('worker-b');
          expect((refused as Error).message, name).toContain('worker-a');
          expect((refused as Error).message, name).toContain('worker-b');
        }
        expect(await rejection(old.renew())).toBeInstanceOf(RunLeaseError);

        // Read back by a store that wrote nothing: exactly what the new holder left.
        const loaded = await fresh.loadRun('r');
        expect(loaded.run.status).toBe('completed');
        expect(loaded.run.result).toBe('b');
        expect(loaded.run.error).toBeUndefined();
        expect(loaded.steps).toEqual([step('s#0', 'a'), step('s#1', 'a'), step('s#2', 'a'), step('s#3', 'b')]);
        expect(loaded.calls).toEqual([call('c#0', 'a')]);
        expect(loaded.data).toEqual({ plan: 'b' });
        expect(loaded.tree).toEqual({ by: 'b' });
        expect(await fresh.readEvents('r')).toEqual([
          { seq: 1, event: { by: 'a' } },
          { seq: 2, event: { by: 'a' } },
          { seq: 3, event: { by: 'b' } },
        ]);
        expect((await fresh.listRuns()).map((run) => [run.id, run.status])).toEqual([['r', 'completed']]);

        // The new holder goes on; writes without a lease (tools, signals) still go through, from either process.
        expect(await other.putStep('r', step('s#6', 'b'), taken)).toBe(true);
        expect(await store.appendEvents('r', [{ by: 'tool' }])).toEqual({ first: 4, last: 4 });
        expect(await store.putStep('r', step('tool#0', 't'))).toBe(true);
        await store.putSignal('r', { name: 'go', value: 1, at: 3 });
        const after = await fresh.loadRun('r');
        expect(after.steps.map((s) => s.key)).toEqual(['s#0', 's#1', 's#2', 's#3', 's#6', 'tool#0']);
        expect(after.signals).toEqual([{ name: 'go', value: 1, at: 3 }]);
        expect((await fresh.readEvents('r', { after: 3 })).map((e) => e.event)).toEqual([{ by: 'tool' }]);
      } finally {
        await other.close();
        await fresh.close();
      }
    }));

    it('a released lease fences its holder too; the next holder writes', withStore(async ({ store, reopen }) => {
      await store.createRun({ id: 'r', rootName: 'W' });
      const first = await store.acquireLease('r', 'worker-a', 60_000);
      expect(await store.putStep('r', step('s#0', 'a'), first)).toBe(true);
      await first.release();
      expect(await rejection(store.putStep('r', step('s#1', 'a'), first))).toBeInstanceOf(RunFencedError);
      expect(await rejection(store.updateRun('r', { status: 'failed' }, first))).toBeInstanceOf(RunFencedError);
      const other = await reopen();
      try {
        const second = await other.acquireLease('r', 'worker-b', 60_000);
        expect(await other.putStep('r', step('s#1', 'b'), second)).toBe(true);
        expect(await rejection(store.appendEvents('r', [{ by: 'a' }], first))).toBeInstanceOf(RunFencedError);
        const loaded = await other.loadRun('r');
        expect(loaded.steps).toEqual([step('s#0', 'a'), step('s#1', 'b')]);
        expect(loaded.run.status).toBe('running');
        expect(await other.readEvents('r')).toEqual([]);
      } finally {
        await other.close();
      }
    }));

    it('refuses run ids that could leave the store folder', withStore(async ({ store }) => {
      for (const id of ['', '../x', '..', 'a/b', 'a\\b', '.hidden', 'a..b', 'a\0b', 'x'.repeat(201), 'a b', 'é']) {
        expect(await rejection(store.createRun({ id, rootName: 'W' })), JSON.stringify(id)).toBeInstanceOf(UsageError);
        expect(await rejection(store.loadRun(id)), JSON.stringify(id)).toBeInstanceOf(UsageError);
      }
      expect(await rejection(store.createRun({ id: 42 as never, rootName: 'W' }))).toBeInstanceOf(UsageError);
      expect(await store.listRuns()).toEqual([]);
    }));

    it('refuses values JSON would change, naming where, and stores nothing of them', withStore(async ({ store }) => {
      await store.createRun({ id: 'r', rootName: 'W' });
      class Point {
        x = 1;
      }
      const cyclic: Record<string, unknown> = { a: 1 };
      cyclic.self = cyclic;
      const bad: [unknown, string][] = [
        [{ f: () => 1 }, '$.f'],
        [{ n: Number.NaN }, '$.n'],
        [[1, Number.POSITIVE_INFINITY], '$[1]'],
        [{ when: new Date(0) }, '$.when'],
        [cyclic, '$.self'],
        [new Map([[1, 2]]), '$'],
        [new Point(), '$'],
        [{ big: 10n }, '$.big'],
        [[1, undefined], '$[1]'],
        [{ [Symbol('s')]: 1 }, '$'],
        [{ toJSON: () => 'x' }, '$'],
      ];
      for (const [value, path] of bad) {
        const error = await rejection(store.putStep('r', step('k', value)));
        expect(error, path).toBeInstanceOf(RunValueError);
        expect((error as Error).message).toContain(`at ${path.replace('$', '$.value')}:`);
      }
      expect(await rejection(store.createRun({ id: 'r2', rootName: 'W', input: { n: Number.NaN } }))).toBeInstanceOf(RunValueError);
      expect(await rejection(store.putData('r', 'd', { f: Symbol('x') }))).toBeInstanceOf(RunValueError);
      expect(await rejection(store.appendEvents('r', [{ ok: 1 }, { bad: () => 1 }]))).toBeInstanceOf(RunValueError);
      expect(await rejection(store.updateRun('r', { result: new Date(0) }))).toBeInstanceOf(RunValueError);
      expect(await store.getRun('r2')).toBeUndefined();
      const loaded = await store.loadRun('r');
      expect(loaded.steps).toEqual([]);
      expect(loaded.data).toEqual({});
      expect(loaded.run.result).toBeUndefined();
      expect(await store.readEvents('r')).toEqual([]);
      // The key was never written, so it can be written now.
      expect(await store.putStep('r', step('k', 'fine'))).toBe(true);
    }));

    it('values come back exactly: key order, unicode, NUL, lone surrogates, big and deep values', withStore(async ({ store }) => {
      await store.createRun({ id: 'r', rootName: 'W' });
      const exotic = { z: 1, a: 2, m: { y: [3, 2, 1], b: 'x' }, s: 'nul:\u0000 emoji:😀 lone:\ud800 quote:" back:\\', n: -1.5e-300, i: 2 ** 53 };
      let deep: unknown = 'bottom';
      for (let i = 0; i < 200; i += 1) deep = { d: deep };
      const huge = 'x'.repeat(5_000_000);
      await store.putStep('r', step('exotic', exotic));
      await store.putStep('r', step('deep', deep));
      await store.putStep('r', step('huge', { huge }));
      const steps = (await store.loadRun('r')).steps;
      expect(JSON.stringify(steps[0]?.value)).toBe(JSON.stringify(exotic));
      expect(steps[1]?.value).toEqual(deep);
      expect((steps[2]?.value as { huge: string }).huge.length).toBe(huge.length);
      let tooDeep: unknown = 1;
      for (let i = 0; i < 2000; i += 1) tooDeep = [tooDeep];
      expect(await rejection(store.putStep('r', step('too-deep', tooDeep)))).toBeInstanceOf(RunValueError);
    }));

    it('another store instance over the same data sees everything and keeps keys written once', withStore(async ({ store, reopen }) => {
      await store.createRun({ id: 'r', rootName: 'W', input: { q: 1 } });
      await store.putStep('r', step('s#0', 1));
      await store.putCall('r', call('c#0', 'a'));
      await store.appendEvents('r', [{ type: 'e1' }]);
      await store.putData('r', 'plan', 'p');
      await store.updateRun('r', { status: 'suspended', waitingFor: { name: 'go', since: 1 } });
      const other = await reopen();
      try {
        const loaded = await other.loadRun('r');
        expect(loaded.run.status).toBe('suspended');
        expect(loaded.steps.map((s) => s.key)).toEqual(['s#0']);
        expect(loaded.calls.map((c) => c.key)).toEqual(['c#0']);
        expect(loaded.data).toEqual({ plan: 'p' });
        expect(await other.putStep('r', step('s#0', 2))).toBe(false);
        expect(await other.appendEvents('r', [{ type: 'e2' }])).toEqual({ first: 2, last: 2 });
        await other.putSignal('r', { name: 'go', value: true, at: 9 });
        expect((await store.loadRun('r')).signals).toEqual([{ name: 'go', value: true, at: 9 }]);
      } finally {
        await other.close();
      }
    }));

    it('a closed store refuses further use', withStore(async ({ store }) => {
      await store.createRun({ id: 'r', rootName: 'W' });
      await store.close();
      expect(await rejection(store.getRun('r'))).toBeInstanceOf(Error);
      await store.close();
    }));

    it('data named __proto__ comes back as an own property and leaves data a plain object', withStore(async ({ store, reopen }) => {
      await store.createRun({ id: 'r', rootName: 'W' });
      await store.putData('r', '__proto__', { polluted: true });
      await store.putData('r', 'constructor', 'c');
      await store.putData('r', 'plan', 'p');
      // A value with an own "__proto__" key (as JSON.parse makes it) comes back the same way.
      const parsed: unknown = JSON.parse('{"__proto__":{"x":1},"y":2}');
      await store.putStep('r', step('s', parsed));
      const other = await reopen();
      try {
        for (const loaded of [await store.loadRun('r'), await other.loadRun('r')]) {
          const { data } = loaded;
          expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
          expect(Object.keys(data).sort()).toEqual(['__proto__', 'constructor', 'plan']);
          expect(Object.getOwnPropertyDescriptor(data, '__proto__')).toEqual({ value: { polluted: true }, writable: true, enumerable: true, configurable: true });
          expect((data as { polluted?: unknown }).polluted).toBeUndefined();
          expect(data.constructor).toBe('c');
          const value = loaded.steps[0]?.value as object;
          expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
          expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ x: 1 });
          expect(JSON.stringify(value)).toBe('{"__proto__":{"x":1},"y":2}');
        }
      } finally {
        await other.close();
      }
    }));

    it('keys and names with U+0000, U+0001 or lone surrogates are kept exactly, distinct and written once', withStore(async ({ store, reopen }) => {
      // Pairs a lossy or naive escaping would merge: each must stay its own key.
      const names = ['k\u0000', 'k', 'k\u00010000', 'k\u0001', 'k\\0', 'k\ud800', 'k\udbff', 'k\udc00x', 'k\u0000\u0000'];
      await store.createRun({ id: 'r', rootName: 'Root\u0000A' });
      await store.createRun({ id: 'r2', rootName: 'Root' });
      for (const [i, name] of names.entries()) {
        expect(await store.putStep('r', step(name, `v\u0000${i}`)), JSON.stringify(name)).toBe(true);
        expect(await store.putCall('r', call(name, `a\u0000${i}`)), JSON.stringify(name)).toBe(true);
        await store.putData('r', name, `d\u0000${i}`);
        await store.putSignal('r', { name, value: `s\u0000${i}`, at: i });
      }
      for (const name of names) {
        expect(await store.putStep('r', step(name, 'again')), JSON.stringify(name)).toBe(false);
        expect(await store.putCall('r', call(name, 'again')), JSON.stringify(name)).toBe(false);
      }
      await store.updateRun('r', { status: 'suspended', waitingFor: { name: 'go\u0000', since: 1 } });
      expect(await store.appendEvents('r', [{ type: 'e\u0000', ['k\u0000']: '\u0000' }])).toEqual({ first: 1, last: 1 });
      const lease = await store.acquireLease('r', 'worker\u0000a', 1000);
      const refused = await rejection(store.acquireLease('r', 'worker', 1000));
      expect(refused).toBeInstanceOf(RunLeaseError);
      expect((refused as RunLeaseError).holder).toBe('worker\u0000a');
      await lease.release();
      const other = await reopen();
      try {
        for (const reader of [store, other]) {
          const loaded = await reader.loadRun('r');
          expect(loaded.run.rootName).toBe('Root\u0000A');
          expect(loaded.run.waitingFor?.name).toBe('go\u0000');
          expect(loaded.steps).toEqual(names.map((name, i) => step(name, `v\u0000${i}`)));
          expect(loaded.calls).toEqual(names.map((name, i) => call(name, `a\u0000${i}`)));
          expect(loaded.signals).toEqual(names.map((name, i) => ({ name, value: `s\u0000${i}`, at: i })));
          expect(Object.entries(loaded.data).sort(([a], [b]) => (a < b ? -1 : 1))).toEqual(
            names.map((name, i) => [name, `d\u0000${i}`]).sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1)),
          );
          expect(await reader.readEvents('r')).toEqual([{ seq: 1, event: { type: 'e\u0000', ['k\u0000']: '\u0000' } }]);
          expect((await reader.listRuns({ rootName: 'Root\u0000A' })).map((r) => r.id)).toEqual(['r']);
          expect((await reader.listRuns({ rootName: 'Root' })).map((r) => r.id)).toEqual(['r2']);
        }
        expect(await other.putStep('r', step('k\u0000', 'again'))).toBe(false);
      } finally {
        await other.close();
      }
    }));

    it('readEvents and listRuns: an after or limit out of the usual range reads, one that is not a number is a UsageError', withStore(async ({ store }) => {
      await store.createRun({ id: 'r', rootName: 'W' });
      await store.appendEvents('r', [{ type: 'a' }, { type: 'b' }, { type: 'c' }]);
      expect((await store.readEvents('r', { after: 1.5 })).map((e) => e.seq)).toEqual([2, 3]);
      expect((await store.readEvents('r', { after: -7 })).map((e) => e.seq)).toEqual([1, 2, 3]);
      expect(await store.readEvents('r', { after: 2 ** 70 })).toEqual([]);
      expect((await store.readEvents('r', { limit: 1e300 })).map((e) => e.seq)).toEqual([1, 2, 3]);
      expect((await store.listRuns({ limit: 1e300 })).map((r) => r.id)).toEqual(['r']);
      expect(await rejection(store.readEvents('r', { after: 'x' as never }))).toBeInstanceOf(UsageError);
      expect(await rejection(store.readEvents('r', { after: Number.NaN }))).toBeInstanceOf(UsageError);
      expect(await rejection(store.listRuns({ rootName: 5 as never }))).toBeInstanceOf(UsageError);
    }));
  });
}
