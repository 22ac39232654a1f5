import { describe, expect, it } from 'vitest';
import {
  createWorkflow,
  UsageError,
  WorkflowCancelledError,
  type ChildOutcome,
  type FanOutOptions,
  type ItemOutcome,
  type Workflow,
} from 'groundswell';
import { allNodes, flush } from '../support/core-helpers.js';
import { deferred } from '../support/deferred.js';
import { eventsOfType, record } from '../support/events.js';
import { Gates } from '../support/gates.js';

describe('concurrency limit', () => {
  it('ctx.spawnAll never runs more than `concurrency` children at once, and starts them in order', async () => {
    const gates = new Gates(10);
    const wf = createWorkflow({ name: 'parent' }, (ctx) => ctx.spawnAll(gates.workflows(), { concurrency: 3 }));
    const running = wf.run();
    await gates.startOf(2);
    await flush();
    expect(gates.started).toEqual([0, 1, 2]);
    // Release out of order: each freed slot goes to the next child in line, never more than 3.
    for (const [released, next] of [[1, 3], [0, 4], [4, 5], [2, 6]] as const) {
      gates.release(released);
      await gates.startOf(next);
      await flush();
      expect(gates.started.at(-1)).toBe(next);
      expect(gates.inFlight).toBe(3);
    }
    gates.releaseAll();
    await expect(running).resolves.toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
    expect(gates.started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(gates.maxInFlight).toBe(3);
  });

  it('ctx.map holds the same limit for steps', async () => {
    const gates = new Gates(6);
    const wf = createWorkflow({ name: 'parent' }, (ctx) =>
      ctx.map([0, 1, 2, 3, 4, 5], (index) => ctx.step(`job-${index}`, () => gates.body(index)), { concurrency: 2 }),
    );
    const running = wf.run();
    await gates.startOf(1);
    await flush();
    expect(gates.started).toEqual([0, 1]);
    gates.release(1);
    await gates.startOf(2);
    await flush();
    expect(gates.started).toEqual([0, 1, 2]);
    gates.releaseAll();
    await expect(running).resolves.toEqual([0, 10, 20, 30, 40, 50]);
    expect(gates.maxInFlight).toBe(2);
  });

  it('without a limit every child starts at once', async () => {
    const gates = new Gates(5);
    const running = createWorkflow({ name: 'parent' }, (ctx) => ctx.spawnAll(gates.workflows())).run();
    await gates.startOf(4);
    expect(gates.inFlight).toBe(5);
    gates.releaseAll();
    await expect(running).resolves.toHaveLength(5);
  });

  it('after a failure no queued child starts (they stay idle) and the failure is thrown', async () => {
    const gates = new Gates(6, new Set([1]));
    const children = gates.workflows();
    const wf = createWorkflow({ name: 'parent' }, (ctx) => ctx.spawnAll(children, { concurrency: 2 }));
    const running = wf.run().catch((e: unknown) => e);
    await gates.startOf(1);
    gates.release(1);
    await flush();
    gates.releaseAll();
    const error = await running;
    expect((error as Error).message).toContain('job 1 failed');
    expect(gates.started).toEqual([0, 1]);
    expect(children.map((c) => c.status)).toEqual(['completed', 'failed', 'idle', 'idle', 'idle', 'idle']);
  });

  it('1,000 children with concurrency 8 all complete, in order, never more than 8 at once', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const children = Array.from({ length: 1_000 }, (_, index) =>
      createWorkflow({ name: `c${index}` }, async (ctx) => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        const value = await ctx.step('work', async () => index);
        inFlight -= 1;
        return value;
      }),
    );
    const wf = createWorkflow({ name: 'parent' }, (ctx) => ctx.spawnAll(children, { concurrency: 8 }));
    const result = await wf.run();
    expect(result).toEqual(Array.from({ length: 1_000 }, (_, i) => i));
    expect(maxInFlight).toBe(8);
    expect(children.every((c) => c.status === 'completed')).toBe(true);
    expect(allNodes(wf.node).filter((n) => n.status === 'running')).toEqual([]);
  });
});

describe('cancelling a limited fan-out', () => {
  it("settle: 'all': stops starting, reports the queued children as cancelled before they started, and settles", async () => {
    const gates = new Gates(6);
    const children = gates.workflows();
    let outcomes: Array<ChildOutcome<Workflow<number>>> = [];
    const wf = createWorkflow({ name: 'parent' }, async (ctx) => {
      // The step itself throws WorkflowCancelledError once its body returns: read the outcomes inside.
      await ctx.step('fan', async () => {
        outcomes = await ctx.spawnAll(children, { concurrency: 2, settle: 'all' });
      });
    });
    const rec = record(wf);
    const running = wf.run().catch((e: unknown) => e);
    await gates.startOf(1);
    gates.release(0);
    await gates.startOf(2);
    wf.cancel('user stop');
    gates.releaseAll();
    expect(await running).toBeInstanceOf(WorkflowCancelledError);

    expect(gates.started).toEqual([0, 1, 2]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected']);
    for (const outcome of outcomes.slice(1)) {
      expect(outcome.status === 'rejected' && outcome.error).toBeInstanceOf(WorkflowCancelledError);
    }
    const queued = outcomes.slice(3).map((o) => (o.status === 'rejected' ? o.error.message : ''));
    expect(queued).toEqual(['c3', 'c4', 'c5'].map((name) => `Workflow "${name}" was cancelled before it started (user stop).`));
    // The queued ones never ran: no start event, and the cancel's cascade marked them cancelled.
    const startedNames = eventsOfType(rec.events, 'workflowStart').map((e) => e.name);
    expect(startedNames).toEqual(['parent', 'c0', 'c1', 'c2']);
    expect(children.map((c) => c.status)).toEqual(['completed', 'cancelled', 'cancelled', 'cancelled', 'cancelled', 'cancelled']);
    expect(allNodes(wf.node).filter((n) => n.status === 'running')).toEqual([]);
  });

  it('by default: rejects with WorkflowCancelledError once the running children settle on the abort signal', async () => {
    const started: string[] = [];
    const children = Array.from({ length: 5 }, (_, index) =>
      createWorkflow({ name: `c${index}` }, async (ctx) => {
        started.push(ctx.workflow.name);
        // Only the abort ends these bodies: nothing else would let the run settle.
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      }),
    );
    const allStarted = deferred();
    const wf = createWorkflow({ name: 'parent' }, (ctx) => {
      const fan = ctx.spawnAll(children, { concurrency: 2 });
      allStarted.resolve();
      return fan;
    });
    const running = wf.run().catch((e: unknown) => e);
    await allStarted.promise;
    await flush();
    wf.cancel('enough');
    expect(await running).toBeInstanceOf(WorkflowCancelledError);
    expect(started).toEqual(['c0', 'c1']);
    expect(children.map((c) => c.status)).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled', 'cancelled']);
  });

  it('ctx.map: items a cancel kept from starting are rejected with one WorkflowCancelledError', async () => {
    const gates = new Gates(4);
    let outcomes: Array<ItemOutcome<number, number>> = [];
    const wf = createWorkflow({ name: 'parent' }, async (ctx) => {
      outcomes = await ctx.map([0, 1, 2, 3], (index) => gates.body(index), { concurrency: 1, settle: 'all' });
    });
    const running = wf.run().catch((e: unknown) => e);
    await gates.startOf(0);
    wf.cancel('stop');
    gates.releaseAll();
    expect(await running).toBeInstanceOf(WorkflowCancelledError);
    expect(gates.started).toEqual([0]);
    // Item 0 ran to its end (plain code does not see the cancel); the rest never started.
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected']);
    const errors = outcomes.slice(1).map((o) => (o.status === 'rejected' ? o.error : undefined));
    expect(errors[0]).toBeInstanceOf(WorkflowCancelledError);
    expect((errors[0] as Error).message).toBe('ctx.map: cancelled before this item started (stop).');
    expect(new Set(errors).size).toBe(1);
  });
});

describe('fan-out options are validated', () => {
  const bad: Array<[unknown, RegExp]> = [
    [{ concurrency: 0 }, /^ctx\.spawnAll: options\.concurrency must be a positive integer, got 0\.$/],
    [{ concurrency: -1 }, /options\.concurrency must be a positive integer, got -1/],
    [{ concurrency: Number.NaN }, /options\.concurrency must be a positive integer, got NaN/],
    [{ concurrency: 1.5 }, /options\.concurrency must be a positive integer, got 1\.5/],
    [{ concurrency: Number.POSITIVE_INFINITY }, /options\.concurrency must be a positive integer, got Infinity/],
    [{ concurrency: '4' }, /options\.concurrency must be a positive integer, got "4"/],
    [{ settle: 'some' }, /options\.settle must be one of: throw, all, got "some"/],
    [{ concurency: 4 }, /options has an unknown key "concurency" \(did you mean concurrency\?\)/],
    [null, /options must be an object like/],
  ];

  it.each(bad)('ctx.spawnAll and ctx.map refuse %o, naming the field, before anything runs', async (options, message) => {
    const child = createWorkflow({ name: 'child' }, () => 1);
    const ran: number[] = [];
    const wf = createWorkflow({ name: 'parent' }, async (ctx) => {
      const spawnAll = ctx.spawnAll as (children: unknown, options: unknown) => Promise<unknown>;
      const map = ctx.map as (items: unknown, fn: unknown, options: unknown) => Promise<unknown>;
      return [
        await spawnAll([child], options).catch((e: unknown) => e),
        await map([1], (n: number) => ran.push(n), options).catch((e: unknown) => e),
      ];
    });
    const [spawnError, mapError] = await wf.run();
    expect(spawnError).toBeInstanceOf(UsageError);
    expect((spawnError as Error).message).toMatch(message);
    expect(mapError).toBeInstanceOf(UsageError);
    expect((mapError as Error).message).toMatch(message.source.startsWith('^') ? /^ctx\.map: / : message);
    expect(child.parent).toBeNull();
    expect(ran).toEqual([]);
  });

  it('valid options pass', async () => {
    const options: FanOutOptions = { concurrency: 1, settle: 'throw' };
    const wf = createWorkflow({ name: 'parent' }, (ctx) => ctx.map([1], (n) => n, options));
    await expect(wf.run()).resolves.toEqual([1]);
  });
});
