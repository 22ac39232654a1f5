import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  createWorkflow,
  getCurrentNode,
  getCurrentWorkflow,
  requireCurrentWorkflow,
  runInContext,
  UsageError,
  Workflow,
  type WorkflowNode,
} from 'groundswell';
import { findByName, flush, must, shape } from '../support/core-helpers.js';
import { deferred } from '../support/deferred.js';
import { record } from '../support/events.js';

describe('one tree, mounted automatically', () => {
  it('makes every step node a real child of its workflow node', async () => {
    let seenWhileRunning: WorkflowNode | undefined;
    const wf = createWorkflow({ name: 'root' }, async (ctx) => {
      await ctx.step('a', () => {
        seenWhileRunning = getCurrentNode();
        return 1;
      });
      await ctx.step('b', () => 2);
    });
    await wf.run();

    expect(wf.node.children.map((n) => [n.kind, n.name, n.status])).toEqual([
      ['step', 'a', 'completed'],
      ['step', 'b', 'completed'],
    ]);
    const a = must(wf.node.children[0], 'step a');
    expect(a.parent).toBe(wf.node);
    expect(a.workflowId).toBe(wf.id);
    expect(seenWhileRunning).toBe(a);
  });

  it('shows a running step under its workflow while it runs', async () => {
    const gate = deferred();
    const started = deferred();
    const wf = createWorkflow({ name: 'root' }, async (ctx) => {
      await ctx.step('slow', async () => {
        started.resolve();
        await gate.promise;
      });
    });
    const done = wf.run();
    await started.promise;
    expect(wf.node.children.map((n) => [n.name, n.status])).toEqual([['slow', 'running']]);
    expect(wf.status).toBe('running');
    gate.resolve();
    await done;
    expect(wf.node.children.map((n) => [n.name, n.status])).toEqual([['slow', 'completed']]);
  });

  it('nests a ctx.step called inside another ctx.step under it', async () => {
    const wf = createWorkflow({ name: 'root' }, async (ctx) => {
      await ctx.step('outer', async () => {
        await ctx.step('inner', async () => {
          await ctx.step('innermost', () => 'x');
        });
        await ctx.step('inner2', () => 'y');
      });
      await ctx.step('after', () => 'z');
    });
    await wf.run();
    expect(shape(wf.node)).toEqual({
      name: 'root',
      kind: 'workflow',
      children: [
        {
          name: 'outer',
          kind: 'step',
          children: [
            { name: 'inner', kind: 'step', children: [{ name: 'innermost', kind: 'step', children: [] }] },
            { name: 'inner2', kind: 'step', children: [] },
          ],
        },
        { name: 'after', kind: 'step', children: [] },
      ],
    });
  });

  it('gives each step inside Promise.all its own node under the right parent, even when they interleave', async () => {
    const order: string[] = [];
    const wf = createWorkflow({ name: 'root' }, async (ctx) => {
      await Promise.all(
        ['x', 'y', 'z'].map((id) =>
          ctx.step(id, async () => {
            await flush(1);
            order.push(`${id}.1`);
            await ctx.step(`${id}.1`, async () => {
              await flush(1);
            });
            await ctx.step(`${id}.2`, () => order.push(`${id}.2`));
          }),
        ),
      );
      await ctx.step('batch', () => Promise.all([ctx.step('p1', () => 1), ctx.step('p2', () => 2)]));
    });
    await wf.run();

    // The three bodies really ran interleaved, not one after another.
    expect(order.slice(0, 3)).toEqual(['x.1', 'y.1', 'z.1']);
    expect(shape(wf.node).children).toEqual([
      ...['x', 'y', 'z'].map((id) => ({
        name: id,
        kind: 'step',
        children: [
          { name: `${id}.1`, kind: 'step', children: [] },
          { name: `${id}.2`, kind: 'step', children: [] },
        ],
      })),
      {
        name: 'batch',
        kind: 'step',
        children: [
          { name: 'p1', kind: 'step', children: [] },
          { name: 'p2', kind: 'step', children: [] },
        ],
      },
    ]);
  });

  it('mounts a child workflow constructed or attached inside a running step under that step node', async () => {
    let constructed: Workflow<string> | undefined;
    let attached: Workflow<string> | undefined;
    let outside: Workflow | undefined;
    const wf = createWorkflow({ name: 'root' }, async (ctx) => {
      outside = new Workflow('outside', ctx.workflow);
      await ctx.step('make', async () => {
        constructed = new Workflow<string>({ name: 'constructed' }, ctx.workflow);
        attached = createWorkflow({ name: 'attached' }, async (c) => c.step('attached-work', () => 'ok'));
        ctx.workflow.attachChild(attached);
        await attached.run();
      });
    });
    await wf.run();

    const make = findByName(wf.node, 'make');
    const c = must(constructed, 'constructed child');
    const a = must(attached, 'attached child');
    expect(c.parent).toBe(wf);
    expect(a.parent).toBe(wf);
    expect(wf.children).toEqual([must(outside, 'outside child'), c, a]);
    expect(c.node.parent).toBe(make);
    expect(a.node.parent).toBe(make);
    expect(must(outside, 'outside child').node.parent).toBe(wf.node);
    expect(make.children.map((n) => n.name)).toEqual(['constructed', 'attached']);
    // The child's own steps hang under the child's node.
    expect(a.node.children.map((n) => n.name)).toEqual(['attached-work']);
  });

  it('reports the current workflow and node inside executors, steps, child steps and timers', async () => {
    expect(getCurrentWorkflow()).toBeUndefined();
    expect(getCurrentNode()).toBeUndefined();

    const seen: Array<[string, Workflow | undefined, WorkflowNode | undefined]> = [];
    const note = (label: string): void => {
      seen.push([label, getCurrentWorkflow(), getCurrentNode()]);
    };
    const child = createWorkflow({ name: 'child' }, async (ctx) => {
      await ctx.step('child-step', () => note('child-step'));
    });
    const wf = createWorkflow({ name: 'root' }, async (ctx) => {
      note('body');
      await ctx.step('s', async () => {
        note('step-start');
        await flush(1);
        note('step-after-await');
        await new Promise<void>((resolve) =>
          setTimeout(() => {
            note('timer');
            resolve();
          }, 0),
        );
        await ctx.spawnWorkflow(child);
        note('step-after-child');
      });
      note('body-end');
    });
    await wf.run();

    const s = findByName(wf.node, 's');
    const childStep = findByName(wf.node, 'child-step');
    expect(seen).toEqual([
      ['body', wf, wf.node],
      ['step-start', wf, s],
      ['step-after-await', wf, s],
      ['timer', wf, s],
      ['child-step', child, childStep],
      ['step-after-child', wf, s],
      ['body-end', wf, wf.node],
    ]);
    expect(getCurrentWorkflow()).toBeUndefined();
  });

  it('requireCurrentWorkflow throws a UsageError naming the operation outside a workflow', async () => {
    expect(() => requireCurrentWorkflow('agent.prompt()')).toThrow(UsageError);
    expect(() => requireCurrentWorkflow('agent.prompt()')).toThrow(/agent\.prompt\(\)/);
    const wf = createWorkflow({ name: 'root' }, () => requireCurrentWorkflow('x'));
    await expect(wf.run()).resolves.toBe(wf);
  });

  it('runInContext puts callbacks from outside the async chain back at the given node', async () => {
    const emitter = new EventEmitter();
    const listening = deferred();
    const gate = deferred();
    const seen: Array<[Workflow | undefined, WorkflowNode | undefined]> = [];
    let stepNode: WorkflowNode | undefined;
    const lateResults: Array<Promise<string>> = [];

    const wf = createWorkflow({ name: 'root' }, async (ctx) => {
      await ctx.step('listen', async () => {
        const node = must(getCurrentNode(), 'step node');
        stepNode = node;
        emitter.on('ping', () => {
          // EventEmitter runs handlers in the emitter's context, not the registering step's.
          seen.push([getCurrentWorkflow(), getCurrentNode()]);
          runInContext(
            ctx.workflow,
            () => {
              seen.push([getCurrentWorkflow(), getCurrentNode()]);
              ctx.logger.info('ping received');
              lateResults.push(ctx.step('late', () => 'late-ok'));
            },
            node,
          );
        });
        listening.resolve();
        await gate.promise;
        await Promise.all(lateResults);
      });
    });

    const done = wf.run();
    await listening.promise;
    emitter.emit('ping');
    gate.resolve();
    await done;

    const listen = must(stepNode, 'listen node');
    expect(seen).toEqual([
      [undefined, undefined],
      [wf, listen],
    ]);
    expect(listen.logs.map((l) => l.message)).toEqual(['ping received']);
    expect(listen.children.map((n) => [n.name, n.status])).toEqual([['late', 'completed']]);
    await expect(must(lateResults[0], 'late step')).resolves.toBe('late-ok');
  });

  it('runInContext defaults to the workflow node and refuses a node of another workflow', () => {
    const a = new Workflow('a');
    const b = new Workflow('b');
    expect(runInContext(a, () => [getCurrentWorkflow(), getCurrentNode()])).toEqual([a, a.node]);
    runInContext(a, () => a.logger.info('on a'));
    expect(a.node.logs.map((l) => l.message)).toEqual(['on a']);
    expect(() => runInContext(a, () => 1, b.node)).toThrow(UsageError);
    expect(() => runInContext(a, () => 1, b.node)).toThrow(/does not belong to workflow "a"/);
  });

  it('mounts a parentless workflow run inside another workflow\'s step under that step', async () => {
    const inner = createWorkflow({ name: 'inner' }, async (ctx) => ctx.step('inner-work', () => 7));
    const outer = createWorkflow({ name: 'outer' }, async (ctx) => ctx.step('host', () => inner.run()));
    const rec = record(outer);

    await expect(outer.run()).resolves.toBe(7);

    const host = findByName(outer.node, 'host');
    expect(inner.parent).toBe(outer);
    expect(inner.root).toBe(outer);
    expect(outer.children).toEqual([inner]);
    expect(inner.node.parent).toBe(host);
    expect(shape(host)).toEqual({
      name: 'host',
      kind: 'step',
      children: [{ name: 'inner', kind: 'workflow', children: [{ name: 'inner-work', kind: 'step', children: [] }] }],
    });
    expect(rec.sequence).toContain('event:workflowStart:inner');
    expect(rec.sequence).toContain('event:stepEnd:inner-work');
  });

  it('keeps a detached: true workflow run inside a step as its own root', async () => {
    const inner = createWorkflow({ name: 'inner', detached: true }, async (ctx) => {
      const here = getCurrentWorkflow();
      await ctx.step('inner-work', () => 7);
      return here;
    });
    const outer = createWorkflow({ name: 'outer' }, async (ctx) => ctx.step('host', () => inner.run()));
    const rec = record(outer);
    const innerRec = record(inner);

    await expect(outer.run()).resolves.toBe(inner);

    expect(inner.parent).toBeNull();
    expect(inner.root).toBe(inner);
    expect(outer.children).toEqual([]);
    expect(inner.node.parent).toBeNull();
    expect(findByName(outer.node, 'host').children).toEqual([]);
    expect(rec.sequence.some((s) => s.includes('inner'))).toBe(false);
    expect(innerRec.sequence).toEqual([
      'event:workflowStart:inner',
      'event:stepStart:inner-work',
      'event:stepEnd:inner-work',
      'event:workflowEnd:inner',
    ]);
  });
});
