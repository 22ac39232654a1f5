import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, resume, RunInterruptedError, UsageError, type Workflow, type WorkflowContext } from 'groundswell';
import { MemoryRunStore, RunFencedError, RunLeaseError, RunValueError, type RunStore, type StepRecord } from 'groundswell/durable';
import { json, ScriptedModel } from 'groundswell/testing';
import { agentModelSync } from '../support/model-path.js';
import { runStoreContract, TestClock } from './run-store-contract.js';

/**
 * "Another instance over the same data" for a store whose data is its object: the same store
 * behind a handle whose close() leaves it open, as closing a second connection would.
 */
function sharedHandle(store: MemoryRunStore): RunStore {
  return new Proxy(store, {
    get(target, name) {
      if (name === 'close') return async () => undefined;
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

runStoreContract('MemoryRunStore', async () => {
  const clock = new TestClock();
  const store = new MemoryRunStore({ clock });
  return { store, clock, reopen: async () => sharedHandle(store), cleanup: () => store.close() };
});

function step(key: string, value: unknown): StepRecord {
  return { key, status: 'completed', value, at: 1 };
}

describe('MemoryRunStore', () => {
  it('shares no object with its callers: what was passed in or handed out can be changed freely', async () => {
    const store = new MemoryRunStore();
    const input = { q: { deep: [1] } };
    await store.createRun({ id: 'r', rootName: 'W', input });
    input.q.deep.push(2);
    const value = { rows: [1, 2] };
    const record = step('s', value);
    await store.putStep('r', record);
    value.rows.push(3);
    record.status = 'failed';
    const event = { type: 'e', n: [1] };
    await store.appendEvents('r', [event]);
    event.n.push(2);
    const plan = ['a'];
    await store.putData('r', 'plan', plan);
    plan.push('b');
    const tree = { root: { children: [] as unknown[] } };
    await store.putTree('r', tree);
    tree.root.children.push('x');
    const signal = { name: 'go', value: { ok: true }, at: 1 };
    await store.putSignal('r', signal);
    signal.value.ok = false;

    const first = await store.loadRun('r');
    (first.run.input as typeof input).q.deep.push(9);
    (first.steps[0]?.value as typeof value).rows.push(9);
    first.steps.pop();
    (first.data.plan as string[]).push('z');
    (first.tree as typeof tree).root.children.push('z');
    (first.signals[0]?.value as { ok: boolean }).ok = false;
    ((await store.readEvents('r'))[0]?.event as typeof event).n.push(9);
    (await store.listRuns())[0]!.status = 'failed';
    (await store.getRun('r'))!.rootName = 'Changed';

    const again = await store.loadRun('r');
    expect(again.run).toMatchObject({ rootName: 'W', status: 'running', input: { q: { deep: [1] } } });
    expect(again.steps).toEqual([step('s', { rows: [1, 2] })]);
    expect(again.data).toEqual({ plan: ['a'] });
    expect(again.tree).toEqual({ root: { children: [] } });
    expect(again.signals).toEqual([{ name: 'go', value: { ok: true }, at: 1 }]);
    expect(await store.readEvents('r')).toEqual([{ seq: 1, event: { type: 'e', n: [1] } }]);
  });

  it('a stale lease writes nothing: each write is a RunFencedError naming the new holder, and the store is as the new holder left it', async () => {
    const clock = new TestClock();
    const store = new MemoryRunStore({ clock });
    await store.createRun({ id: 'r', rootName: 'W' });
    const stale = await store.acquireLease('r', 'a', 1_000);
    expect(await store.putStep('r', step('s#0', 'a'), stale)).toBe(true);
    clock.advance(1_001);
    expect(await store.leaseOf('r')).toEqual({ owner: 'a', expiresAt: stale.expiresAt, state: 'expired' });
    const current = await store.acquireLease('r', 'b', 1_000);
    expect(await store.leaseOf('r')).toEqual({ owner: 'b', expiresAt: current.expiresAt, state: 'alive' });
    const before = { loaded: await store.loadRun('r'), events: await store.readEvents('r') };

    const writes: Array<() => Promise<unknown>> = [
      () => store.putStep('r', step('s#1', 'a'), stale),
      () => store.putCall('r', { key: 'c', answer: 1, usage: { inputTokens: 1, outputTokens: 1, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 }, model: 'm', at: 1 }, stale),
      () => store.appendEvents('r', [{ late: true }], stale),
      () => store.settleStep('r', step('s#2', 'a'), [{ late: true }], stale),
      () => store.putData('r', 'plan', 'late', stale),
      () => store.putTree('r', { late: true }, stale),
      () => store.updateRun('r', { status: 'failed' }, stale),
    ];
    for (const write of writes) {
      const error = await write().catch((e: unknown) => e);
      expect(error, write.toString()).toBeInstanceOf(RunFencedError);
      expect((error as RunFencedError).holder).toBe('b');
      expect((error as Error).message).toMatch(/held by "a".*taken over by "b"/);
    }
    await expect(stale.renew()).rejects.toBeInstanceOf(RunLeaseError);
    expect({ loaded: await store.loadRun('r'), events: await store.readEvents('r') }).toEqual(before);

    // Released: nobody holds the run, and the released lease stays fenced.
    await current.release();
    expect(await store.leaseOf('r')).toBeUndefined();
    await expect(store.putStep('r', step('s#3', 'b'), current)).rejects.toBeInstanceOf(RunFencedError);
  });

  it('from(): a store pre-filled from plain records, checked like writes, without leases', async () => {
    const clock = new TestClock();
    const run = { id: 'rec', rootName: 'Pipeline', status: 'completed' as const, createdAt: 5, updatedAt: 9, result: 3 };
    const steps = [step('Pipeline/s0#0', 1), step('Pipeline/s1#0', 2)];
    const store = MemoryRunStore.from(
      [
        {
          run,
          steps,
          calls: [{ key: 'Pipeline/s0#0/ask#0', answer: { n: 1 }, usage: { inputTokens: 3, outputTokens: 2, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 }, model: 'm', at: 2 }],
          signals: [{ name: 'go', value: true, at: 3 }],
          data: { args: [1] },
          events: [
            { seq: 1, event: { type: 'stepStart' } },
            { seq: 2, event: { type: 'stepEnd' } },
          ],
          tree: { root: 'Pipeline' },
        },
        { run: { id: 'other', rootName: 'X', status: 'running', createdAt: 1, updatedAt: 1 } },
      ],
      { clock },
    );
    steps[0]!.value = 'changed';
    const loaded = await store.loadRun('rec');
    expect(loaded.run).toEqual(run);
    expect(loaded.steps).toEqual([step('Pipeline/s0#0', 1), step('Pipeline/s1#0', 2)]);
    expect(loaded.calls.map((c) => c.key)).toEqual(['Pipeline/s0#0/ask#0']);
    expect(loaded.signals).toEqual([{ name: 'go', value: true, at: 3 }]);
    expect(loaded.data).toEqual({ args: [1] });
    expect(loaded.tree).toEqual({ root: 'Pipeline' });
    expect((await store.listRuns()).map((r) => r.id)).toEqual(['rec', 'other']);
    // It goes on as any store: numbering after the seeded events, keys written once, a free lease.
    expect(await store.appendEvents('rec', [{ type: 'more' }])).toEqual({ first: 3, last: 3 });
    expect(await store.putStep('rec', step('Pipeline/s0#0', 'again'))).toBe(false);
    expect(await store.leaseOf('rec')).toBeUndefined();
    expect((await store.acquireLease('rec', 'me', 1_000)).expiresAt).toBe(clock.t + 1_000);

    // A single run without the array; a run read from another store copies over whole.
    const copy = MemoryRunStore.from({ ...(await store.loadRun('rec')), events: await store.readEvents('rec') });
    expect(await copy.loadRun('rec')).toEqual(await store.loadRun('rec'));
    expect(await copy.readEvents('rec')).toEqual(await store.readEvents('rec'));

    const base = { id: 'x', rootName: 'W', status: 'running' as const, createdAt: 1, updatedAt: 1 };
    expect(() => MemoryRunStore.from({ run: { ...base, result: new Date(0) } })).toThrow(RunValueError);
    expect(() => MemoryRunStore.from({ run: base, data: { d: () => 1 } })).toThrow(RunValueError);
    expect(() => MemoryRunStore.from({ run: base, steps: [step('k', Number.NaN)] })).toThrow(RunValueError);
    expect(() => MemoryRunStore.from({ run: base, steps: [step('k', 1), step('k', 2)] })).toThrow(/appears twice/);
    expect(() => MemoryRunStore.from([{ run: base }, { run: base }])).toThrow(/given twice/);
    expect(() => MemoryRunStore.from({ run: base, events: [{ seq: 2, event: {} }] })).toThrow(/numbered 1, 2, 3/);
    expect(() => MemoryRunStore.from({ run: { ...base, id: '../x' } })).toThrow(UsageError);
    expect(() => MemoryRunStore.from({ run: { ...base, status: 'paused' as never } })).toThrow(UsageError);
    expect(() => MemoryRunStore.from({ run: { ...base, createdAt: Number.NaN } })).toThrow(UsageError);
    expect(() => MemoryRunStore.from({ run: base, steps: [{ key: '', status: 'completed', at: 1 }] })).toThrow(UsageError);
  });

  it('a durable run on it: a holder frozen mid-run, a resume by the same process once its lease lapsed, the frozen holder fenced', async () => {
    const clock = new TestClock(Date.now());
    const store = new MemoryRunStore({ clock });
    const model = new ScriptedModel(() => json({ n: 1 }));
    const agent = createAgent({ name: 'counter', ...agentModelSync(model) });
    const ran: string[] = [];
    let freeze: Promise<void> | undefined;
    let thaw = (): void => undefined;
    const Answer = z.object({ n: z.number() });
    const build = (): Workflow<number> =>
      createWorkflow({ name: 'Pipeline', durable: { store, runId: 'm1', leaseMs: 60_000 } }, async (ctx: WorkflowContext) => {
        let total = 0;
        for (let i = 0; i < 4; i += 1) {
          total += await ctx.step(`s${i}`, async () => {
            ran.push(`s${i}`);
            // The first process stops here for good, as far as the store can tell (no release, no outcome).
            if (i === 2 && freeze !== undefined) await freeze;
            const answer = await agent.prompt(createPrompt({ user: `step ${i}`, responseFormat: Answer }));
            return answer.n + i;
          });
        }
        return total;
      });

    freeze = new Promise((wake) => (thaw = wake));
    const frozen = build().run();
    const frozenOutcome = frozen.then(
      () => undefined,
      (error: unknown) => error,
    );
    await until(() => ran.includes('s2'));
    expect((await store.getRun('m1'))?.status).toBe('running');
    expect((await store.leaseOf('m1'))?.state).toBe('alive');
    await expect(resume('m1', { store, workflows: { Pipeline: build } })).rejects.toBeInstanceOf(RunLeaseError);

    clock.advance(60_001);
    freeze = undefined;
    const result = await resume<number>('m1', { store, workflows: { Pipeline: build } });
    expect(result).toBe(1 + 2 + 3 + 4);
    // s0 and s1 were served from the store; s2 ran again (it never settled), s3 ran once.
    expect(ran).toEqual(['s0', 's1', 's2', 's2', 's3']);
    expect(model.requests).toHaveLength(4);
    const settled = await store.loadRun('m1');
    expect(settled.run).toMatchObject({ status: 'completed', result });
    expect(settled.steps.map((s) => s.key)).toHaveLength(4);

    // The frozen holder wakes up: it was taken over, so it writes nothing and its run stays completed.
    thaw();
    const outcome = await frozenOutcome;
    expect(outcome).toBeInstanceOf(RunInterruptedError);
    expect((outcome as Error).cause).toBeInstanceOf(RunFencedError);
    // Its body was past its last check when it froze, so it asked its model once more; nothing of that was kept.
    expect(model.requests).toHaveLength(5);
    expect(await store.loadRun('m1')).toEqual(settled);
    await store.close();
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i += 1) await new Promise((wake) => setTimeout(wake, 2));
  if (!condition()) throw new Error('gave up waiting');
}
