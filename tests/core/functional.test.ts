import { describe, expect, it } from 'vitest';
import {
  createWorkflow,
  UsageError,
  Workflow,
  WorkflowError,
  type WorkflowContext,
  type WorkflowNode,
} from 'groundswell';
import { findByName, must, shape } from '../support/core-helpers.js';
import { deferred } from '../support/deferred.js';
import { record } from '../support/events.js';

/** Runs `fn` inside a running workflow's executor and returns what it threw (or resolved to). */
async function insideExecutor(fn: (ctx: WorkflowContext) => Promise<unknown> | unknown): Promise<unknown> {
  let outcome: unknown;
  const wf = createWorkflow({ name: 'probe' }, async (ctx) => {
    try {
      outcome = await fn(ctx);
    } catch (error) {
      outcome = error;
    }
  });
  await wf.run();
  return outcome;
}

describe('createWorkflow', () => {
  it('run() resolves to the executor value and leaves the node available', async () => {
    const wf = createWorkflow({ name: 'answer' }, async () => 42);
    expect(wf).toBeInstanceOf(Workflow);
    await expect(wf.run()).resolves.toBe(42);
    expect(wf.node.status).toBe('completed');
    expect(wf.getNode()).toBe(wf.node);
    expect(wf.node.name).toBe('answer');

    const sync = createWorkflow('sync-by-name', () => ({ ok: true }));
    await expect(sync.run()).resolves.toEqual({ ok: true });
    expect(sync.name).toBe('sync-by-name');

    const viaConstructor = new Workflow<string>({ name: 'ctor' }, async (ctx) => ctx.step('s', () => 'from ctor'));
    await expect(viaConstructor.run()).resolves.toBe('from ctor');
  });

  it('ctx.step returns the value of its function, sync or async', async () => {
    const wf = createWorkflow({ name: 'w' }, async (ctx) => {
      const a = await ctx.step('sync', () => 2);
      const b = await ctx.step('async', async () => 3);
      const c = await ctx.step('nested', () => ctx.step('inner', () => 4));
      return a + b + c;
    });
    await expect(wf.run()).resolves.toBe(9);
  });

  it('ctx.step works in loops, conditionals and Promise.all', async () => {
    const wf = createWorkflow({ name: 'flow' }, async (ctx) => {
      const results: number[] = [];
      for (let i = 1; i <= 4; i += 1) {
        if (i % 2 === 0) results.push(await ctx.step(`even-${i}`, () => i * 10));
        else results.push(await ctx.step(`odd-${i}`, () => i));
      }
      let attempts = 0;
      while ((await ctx.step(`poll-${attempts}`, () => attempts)) < 2) attempts += 1;
      const parallel = await Promise.all([1, 2, 3].map((n) => ctx.step(`par-${n}`, async () => n * 100)));
      return [...results, ...parallel];
    });
    await expect(wf.run()).resolves.toEqual([1, 20, 3, 40, 100, 200, 300]);
    expect(wf.node.children.map((n) => n.name)).toEqual([
      'odd-1',
      'even-2',
      'odd-3',
      'even-4',
      'poll-0',
      'poll-1',
      'poll-2',
      'par-1',
      'par-2',
      'par-3',
    ]);
    expect(wf.node.children.every((n) => n.kind === 'step' && n.status === 'completed')).toBe(true);
  });

  it('the context names the workflow and its parent', async () => {
    let rootCtx: WorkflowContext | undefined;
    let childCtx: WorkflowContext | undefined;
    const child = createWorkflow({ name: 'child' }, (ctx) => {
      childCtx = ctx;
    });
    const root = createWorkflow({ name: 'root' }, async (ctx) => {
      rootCtx = ctx;
      await ctx.spawnWorkflow(child);
    });
    await root.run();
    expect(must(rootCtx, 'root ctx').workflowId).toBe(root.id);
    expect(must(rootCtx, 'root ctx').parentWorkflowId).toBeUndefined();
    expect(must(rootCtx, 'root ctx').workflow).toBe(root);
    expect(must(childCtx, 'child ctx').workflowId).toBe(child.id);
    expect(must(childCtx, 'child ctx').parentWorkflowId).toBe(root.id);
  });

  it('ctx.spawnWorkflow attaches a real child, delivers its events to the root observer and returns its value', async () => {
    const grandchild = createWorkflow({ name: 'grandchild' }, (ctx) => ctx.step('gc-step', () => 'gc'));
    const child = createWorkflow({ name: 'child' }, async (ctx) => {
      const fromGc = await ctx.spawnWorkflow(grandchild);
      await ctx.step('child-step', () => ctx.logger.info('child working'));
      return `child+${fromGc}`;
    });
    const root = createWorkflow({ name: 'root' }, async (ctx) => ctx.step('host', () => ctx.spawnWorkflow(child)));
    const rec = record(root);

    await expect(root.run()).resolves.toBe('child+gc');

    expect(child).toBeInstanceOf(Workflow);
    expect(child.parent).toBe(root);
    expect(root.children).toEqual([child]);
    expect(grandchild.parent).toBe(child);
    expect(grandchild.root).toBe(root);
    expect(child.node.parent).toBe(findByName(root.node, 'host'));
    expect(shape(root.node)).toEqual({
      name: 'root',
      kind: 'workflow',
      children: [
        {
          name: 'host',
          kind: 'step',
          children: [
            {
              name: 'child',
              kind: 'workflow',
              children: [
                { name: 'grandchild', kind: 'workflow', children: [{ name: 'gc-step', kind: 'step', children: [] }] },
                { name: 'child-step', kind: 'step', children: [] },
              ],
            },
          ],
        },
      ],
    });
    expect(rec.sequence).toContain('event:workflowEnd:grandchild');
    expect(rec.sequence).toContain('event:stepEnd:gc-step');
    expect(rec.logs.map((l) => l.message)).toEqual(['child working']);
  });

  it('ctx.spawnWorkflow runs a workflow that already is its child without attaching it again', async () => {
    const child = new Workflow<number>({ name: 'kid' }, () => 5);
    const root = createWorkflow({ name: 'root' }, async (ctx) => {
      ctx.workflow.attachChild(child);
      return ctx.spawnWorkflow(child);
    });
    const rec = record(root);
    await expect(root.run()).resolves.toBe(5);
    expect(root.children).toEqual([child]);
    expect(rec.events.filter((e) => e.type === 'childAttached')).toHaveLength(1);
  });

  it('ctx.eventTree gives the live tree: root, getNode, getChildren, getAncestors, toJSON', async () => {
    let tree: WorkflowContext['eventTree'] | undefined;
    let innerId = '';
    let fromChild: WorkflowNode | undefined;
    const child = createWorkflow({ name: 'child' }, (ctx) => {
      fromChild = ctx.eventTree.root;
    });
    const root = createWorkflow({ name: 'root' }, async (ctx) => {
      tree = ctx.eventTree;
      await ctx.step('outer', async () => {
        await ctx.step('inner', () => {
          innerId = must(ctx.eventTree.getNode(must(ctx.eventTree.root.children[0], 'outer').id), 'outer').children[0]?.id ?? '';
        });
        await ctx.spawnWorkflow(child);
      });
    });
    await root.run();

    const t = must(tree, 'event tree');
    expect(t.root).toBe(root.node);
    expect(fromChild).toBe(root.node); // a child's context sees the whole tree
    const outer = findByName(root.node, 'outer');
    const inner = findByName(root.node, 'inner');
    expect(innerId).toBe(inner.id);
    expect(t.getNode(inner.id)).toBe(inner);
    expect(t.getNode(child.id)).toBe(child.node);
    expect(t.getChildren(outer.id).map((n) => n.name)).toEqual(['inner', 'child']);
    expect(t.getAncestors(inner.id)).toEqual([outer, root.node]);
    expect(t.getAncestors(root.id)).toEqual([]);
    expect(t.getNode('no-such-id')).toBeUndefined();
    expect(t.getChildren('no-such-id')).toEqual([]);
    expect(t.getAncestors('no-such-id')).toEqual([]);

    const json = t.toJSON();
    const text = JSON.stringify(json);
    const parsed = JSON.parse(text) as typeof json;
    expect(parsed.id).toBe(root.id);
    expect(parsed.children[0]?.name).toBe('outer');
    expect(parsed.children[0]?.parentId).toBe(root.id);
    expect(parsed.children[0]?.children.map((c) => c.name)).toEqual(['inner', 'child']);
  });

  it('rejects a second run() while the first is still running', async () => {
    const gate = deferred();
    const wf = createWorkflow({ name: 'busy' }, () => gate.promise);
    const first = wf.run();
    await expect(wf.run()).rejects.toBeInstanceOf(UsageError);
    await expect(wf.run()).rejects.toThrow(/already running/);
    gate.resolve();
    await first;
    expect(wf.status).toBe('completed');
  });
});

describe('functional API misuse', () => {
  it('ctx.step("") gives a UsageError about the name', async () => {
    const error = await insideExecutor((ctx) => ctx.step('', () => 1));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(/non-empty name/);
  });

  it('ctx.step with a non-function gives a UsageError naming the step and what it got', async () => {
    const error = await insideExecutor((ctx) =>
      // @ts-expect-error simulating an untyped caller
      ctx.step('x', 42),
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain('"x"');
    expect((error as UsageError).message).toContain('number');
  });

  it('an untyped name gives a UsageError too', async () => {
    const error = await insideExecutor((ctx) =>
      // @ts-expect-error simulating an untyped caller
      ctx.step(undefined, () => 1),
    );
    expect(error).toBeInstanceOf(UsageError);
  });

  it('the misuse also fails run() with a WorkflowError whose cause is the UsageError', async () => {
    const wf = createWorkflow({ name: 'misuser' }, (ctx) => ctx.step('', () => 1));
    const error = await wf.run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorkflowError);
    expect((error as WorkflowError).cause).toBeInstanceOf(UsageError);
    expect(wf.status).toBe('failed');
  });

  it('createWorkflow with a non-function executor gives a UsageError', () => {
    // @ts-expect-error simulating an untyped caller
    expect(() => createWorkflow({}, 'nope')).toThrow(UsageError);
    // @ts-expect-error simulating an untyped caller
    expect(() => createWorkflow({}, 'nope')).toThrow(/executor/);
    // @ts-expect-error simulating an untyped caller
    expect(() => new Workflow(42)).toThrow(UsageError);
  });

  it('a workflow with neither executor nor run() override fails with a message saying so', async () => {
    const bare = new Workflow('bare');
    const error = await bare.run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorkflowError);
    expect((error as WorkflowError).cause).toBeInstanceOf(UsageError);
    expect((error as WorkflowError).message).toMatch(/no executor/);
  });

  it('spawnWorkflow of a workflow that has another parent gives a UsageError naming both', async () => {
    const otherParent = new Workflow('other-parent');
    const taken = createWorkflow({ name: 'taken' }, () => 1);
    otherParent.attachChild(taken);
    let ran = false;
    const error = await insideExecutor((ctx) => {
      ran = true;
      return ctx.spawnWorkflow(taken);
    });
    expect(ran).toBe(true);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain('taken');
    expect((error as UsageError).message).toContain('other-parent');
    expect(taken.status).toBe('idle');
    expect(taken.parent).toBe(otherParent);
  });

  it('spawnWorkflow of something that is not a workflow gives a UsageError', async () => {
    for (const bad of [42, 'child', { run: () => 1 }]) {
      const error = await insideExecutor((ctx) =>
        // @ts-expect-error simulating an untyped caller
        ctx.spawnWorkflow(bad),
      );
      expect(error).toBeInstanceOf(UsageError);
    }
  });

  it('spawnWorkflow(null) gives a UsageError, not a TypeError', async () => {
    for (const bad of [null, undefined]) {
      const error = await insideExecutor((ctx) =>
        // @ts-expect-error simulating an untyped caller
        ctx.spawnWorkflow(bad),
      );
      expect(error).toBeInstanceOf(UsageError);
    }
  });
});
