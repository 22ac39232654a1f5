import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createWorkflow,
  MergedWorkflowError,
  outcomeOf,
  resultOf,
  UsageError,
  Workflow,
  WorkflowError,
  type ChildOutcome,
  type ItemOutcome,
} from 'groundswell';
import { allNodes, failureOf, findByName, must } from '../support/core-helpers.js';
import { eventsOfType, record } from '../support/events.js';

function ok<T>(name: string, value: T): Workflow<T> {
  return createWorkflow({ name }, (ctx) => ctx.step(`${name}-step`, () => value));
}

function failing(name: string): Workflow<never> {
  return createWorkflow({ name }, (ctx) =>
    ctx.step(`${name}-step`, () => {
      throw new Error(`${name} failed`);
    }),
  );
}

describe('ctx.spawnAll', () => {
  it('resolves to each child’s run result, typed and in input order', async () => {
    const wf = createWorkflow({ name: 'parent' }, async (ctx) => {
      const [count, label] = await ctx.spawnAll([ok('count', 3), ok('label', 'three')]);
      expectTypeOf(count).toEqualTypeOf<number>();
      expectTypeOf(label).toEqualTypeOf<string>();
      return `${label}=${count}`;
    });
    await expect(wf.run()).resolves.toBe('three=3');
    expect(wf.children.map((child) => `${child.name}:${child.status}`)).toEqual(['count:completed', 'label:completed']);
  });

  it('attaches every child under the running step before any runs', async () => {
    const children = [ok('a', 1), ok('b', 2)];
    const wf = createWorkflow({ name: 'parent' }, (ctx) => ctx.step('fan', () => ctx.spawnAll(children, { concurrency: 1 })));
    const rec = record(wf);
    await expect(wf.run()).resolves.toEqual([1, 2]);
    expect(findByName(wf.node, 'fan').children.map((n) => n.name)).toEqual(['a', 'b']);
    const order = rec.events.filter((e) => e.type === 'childAttached' || e.type === 'workflowStart').map((e) => e.type);
    expect(order.slice(0, 3)).toEqual(['workflowStart', 'childAttached', 'childAttached']);
  });

  it("settle: 'all' keeps the other children's values when one fails, and the failure stays in the tree", async () => {
    const children = [ok('first', 1), failing('broken'), ok('last', 3)];
    let outcomes: Array<ChildOutcome<Workflow<number>>> = [];
    const wf = createWorkflow({ name: 'parent' }, async (ctx) => {
      outcomes = await ctx.step('fan', () => ctx.spawnAll(children, { settle: 'all' }));
      return outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value);
    });
    const rec = record(wf);
    await expect(wf.run()).resolves.toEqual([1, 3]);

    expect(outcomes.map((o) => [o.status, o.workflow.name])).toEqual([
      ['fulfilled', 'first'],
      ['rejected', 'broken'],
      ['fulfilled', 'last'],
    ]);
    const rejected = must(outcomes[1], 'outcome');
    if (rejected.status !== 'rejected') throw new Error('expected a rejection');
    expect(rejected.error).toBeInstanceOf(WorkflowError);
    expect(rejected.error.message).toContain('broken failed');
    expect(rejected.workflow).toBe(children[1]);
    // The child shows its failure; the step that fanned out and the parent completed.
    expect(children[1]?.status).toBe('failed');
    expect(findByName(wf.node, 'fan').status).toBe('completed');
    expect(wf.status).toBe('completed');
    expect(eventsOfType(rec.events, 'error').map((e) => e.nodeId)).toEqual([findByName(wf.node, 'broken-step').id]);
  });

  it('by default rejects with the first failure, after every started child settled', async () => {
    const slow = ok('slow', 1);
    const broken = failing('broken');
    const wf = createWorkflow({ name: 'parent' }, (ctx) => ctx.spawnAll([slow, broken]));
    const error = await failureOf(wf.run());
    expect(error.message).toContain('broken failed');
    expect(error.workflowId).toBe(broken.id);
    expect(slow.status).toBe('completed');
    expect(allNodes(wf.node).filter((n) => n.status === 'running')).toEqual([]);
  });

  it("merges the failures when the workflow's errorMergeStrategy is on", async () => {
    const wf = createWorkflow({ name: 'parent', errorMergeStrategy: { enabled: true } }, (ctx) =>
      ctx.spawnAll([failing('a'), ok('fine', 0), failing('b')]),
    );
    const error = await failureOf(wf.run());
    expect(error).toBeInstanceOf(MergedWorkflowError);
    expect((error as MergedWorkflowError).errors).toHaveLength(2);
    expect(error.message).toMatch(/2 failures in ctx\.spawnAll/);
  });

  it('refuses a non-array, a non-workflow item and a child of another parent, attaching none', async () => {
    const other = createWorkflow({ name: 'other' }, () => 0);
    const owned = ok('owned', 1);
    other.attachChild(owned);
    const free = ok('free', 2);
    const refusals: unknown[] = [];
    const wf = createWorkflow({ name: 'parent' }, async (ctx) => {
      const untyped = ctx.spawnAll as (children: unknown) => Promise<unknown>;
      for (const bad of ['nope', [free, 42], [free, owned]]) refusals.push(await untyped(bad).catch((e: unknown) => e));
    });
    await wf.run();
    expect(refusals.every((e) => e instanceof UsageError)).toBe(true);
    expect((refusals[1] as Error).message).toMatch(/item 1 is number/);
    expect((refusals[2] as Error).message).toMatch(/item 1, Workflow "owned".*already belongs to "other"/);
    expect(free.parent).toBeNull();
  });
});

describe('ctx.map', () => {
  it('runs fn for each item in the current scope and resolves to the values in order', async () => {
    const wf = createWorkflow({ name: 'parent' }, (ctx) =>
      ctx.step('outer', () => ctx.map([1, 2, 3], (n, index) => ctx.step(`square-${index}`, async () => n * n), { concurrency: 2 })),
    );
    const result = await wf.run();
    expectTypeOf(result).toEqualTypeOf<number[]>();
    expect(result).toEqual([1, 4, 9]);
    expect(findByName(wf.node, 'outer').children.map((n) => n.name)).toEqual(['square-0', 'square-1', 'square-2']);
  });

  it("settle: 'all' gives each item's outcome with the item", async () => {
    let outcomes: Array<ItemOutcome<string, number>> = [];
    const wf = createWorkflow({ name: 'parent' }, async (ctx) => {
      outcomes = await ctx.map(
        ['a', 'bb', 'boom'],
        (word) =>
          ctx.step(`measure ${word}`, () => {
            if (word === 'boom') throw new Error('exploded');
            return word.length;
          }),
        { settle: 'all' },
      );
    });
    await wf.run();
    expect(outcomes.map((o) => [o.status, o.item, o.status === 'fulfilled' ? o.value : undefined])).toEqual([
      ['fulfilled', 'a', 1],
      ['fulfilled', 'bb', 2],
      ['rejected', 'boom', undefined],
    ]);
    expect(wf.status).toBe('completed');
    expect(findByName(wf.node, 'measure boom').status).toBe('failed');
  });

  it('by default rejects with the first failure and starts nothing after it', async () => {
    const started: number[] = [];
    const wf = createWorkflow({ name: 'parent' }, (ctx) =>
      ctx.map(
        [0, 1, 2, 3],
        async (n) => {
          started.push(n);
          if (n === 1) throw new Error('one is wrong');
          return n;
        },
        { concurrency: 1 },
      ),
    );
    const error = await failureOf(wf.run());
    expect(error.message).toContain('one is wrong');
    expect(started).toEqual([0, 1]);
  });

  it('handles an empty list, a limit above the count and a synchronous throw', async () => {
    const wf = createWorkflow({ name: 'parent' }, async (ctx) => {
      const none = await ctx.map([], () => 1);
      const few = await ctx.map([1, 2], (n) => n + 1, { concurrency: 50 });
      const thrown = await ctx
        .map([1], () => {
          throw new Error('sync');
        })
        .catch((e: unknown) => (e as Error).message);
      return { none, few, thrown };
    });
    await expect(wf.run()).resolves.toEqual({ none: [], few: [2, 3], thrown: 'sync' });
  });

  it('refuses a non-array and a non-function', async () => {
    const wf = createWorkflow({ name: 'parent' }, async (ctx) => {
      const untyped = ctx.map as (items: unknown, fn: unknown) => Promise<unknown>;
      return [await untyped('abc', () => 1).catch((e: unknown) => e), await untyped([1], 'fn').catch((e: unknown) => e)];
    });
    const [notArray, notFn] = await wf.run();
    expect(notArray).toBeInstanceOf(UsageError);
    expect((notArray as Error).message).toMatch(/ctx\.map needs an array/);
    expect(notFn).toBeInstanceOf(UsageError);
    expect((notFn as Error).message).toMatch(/ctx\.map needs a function/);
  });
});

describe('resultOf / outcomeOf', () => {
  it('read any workflow’s last run: the value, or the error it rejected with', async () => {
    const good = ok('good', { n: 1 });
    const bad = failing('bad');
    await good.run();
    const error = await failureOf(bad.run());
    expect(resultOf(good)).toEqual({ n: 1 });
    expectTypeOf(resultOf(good)).toEqualTypeOf<{ n: number }>();
    expect(() => resultOf(bad)).toThrow(error);
    expect(outcomeOf(good)).toEqual({ status: 'fulfilled', workflow: good, value: { n: 1 } });
    expect(outcomeOf(bad)).toEqual({ status: 'rejected', workflow: bad, error });
  });

  it('refuse a workflow that has not finished a run, and a non-workflow', async () => {
    const idle = ok('idle', 1);
    expect(() => resultOf(idle)).toThrow(UsageError);
    expect(() => outcomeOf(idle)).toThrow(/Workflow "idle".*has not finished a run \(status idle\)/);
    expect(() => resultOf(42 as unknown as Workflow)).toThrow(/resultOf needs a Workflow, got number/);

    let duringRun: unknown;
    const running = createWorkflow({ name: 'running' }, () => {
      try {
        resultOf(running);
      } catch (e) {
        duringRun = e;
      }
      return 1;
    });
    await running.run();
    // A second run forgets the first outcome until it settles.
    const again = running.run();
    expect(() => resultOf(running)).toThrow(/status running/);
    await again;
    expect(duringRun).toBeInstanceOf(UsageError);
    expect(resultOf(running)).toBe(1);
  });
});
