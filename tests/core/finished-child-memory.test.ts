import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createWorkflow, Workflow, type WorkflowEvent } from 'groundswell';
import { TreeNode } from '../../src/core/tree-node.js';
import { record } from '../support/events.js';

// Structural checks on what a finished child keeps (issue: a parent spawning in a loop kept
// ~1.6 KB per finished child). Byte counts are left to bench W7; these say which objects stay.

/** The node's lazily made history (private); null when it holds nothing beyond its own start and end. */
function historyOf(node: unknown): unknown {
  return (node as { history: unknown }).history;
}

/**
 * A forced full collection in a test run without --expose-gc, after a macrotask: a WeakRef's
 * target is kept until the job that made it ends.
 */
async function collectGarbage(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
}

describe('what a finished child workflow keeps', () => {
  it('its nodes no longer hold the Workflow instance once its run settled', async () => {
    let child: Workflow | undefined;
    const parent = createWorkflow({ name: 'parent' }, async (ctx) => {
      child = createWorkflow({ name: 'child' }, async (c) => c.step('work', () => 1));
      await ctx.spawnWorkflow(child);
    });
    await parent.run();
    const node = (child as Workflow).node as TreeNode;
    const step = node.children[0] as TreeNode;
    expect(node).toBeInstanceOf(TreeNode);
    expect(node.owner).not.toBe(child);
    expect(step.owner).not.toBe(child);
    // The stand-in still answers what the node reports.
    expect(node.workflowId).toBe(child?.id);
    expect(step.workflowId).toBe(child?.id);
    expect(step.owner).toBe(node.owner);
  });

  it('a child Workflow nobody refers to is collected while its nodes stay in the tree', async () => {
    let firstChild: WeakRef<Workflow> | undefined;
    const parent = createWorkflow({ name: 'parent' }, async (ctx) => {
      for (let i = 0; i < 200; i += 1) {
        const child = createWorkflow({ name: `child-${i}` }, async (c) => c.step('work', () => i));
        if (i === 0) firstChild = new WeakRef(child);
        await ctx.spawnWorkflow(child);
      }
    });
    await parent.run();
    await collectGarbage();
    expect(firstChild?.deref()).toBeUndefined();
    expect(parent.node.children).toHaveLength(200);
    expect(parent.node.children[0]?.name).toBe('child-0');
    expect(parent.node.children[0]?.children.map((n) => [n.name, n.status])).toEqual([['work', 'completed']]);
  });

  it("the parent's children list forgets finished children in batches, keeps running ones and small lists whole", async () => {
    const small = createWorkflow({ name: 'small' }, async (ctx) => {
      for (let i = 0; i < 10; i += 1) await ctx.spawnWorkflow(createWorkflow({ name: `c${i}` }, () => i));
    });
    await small.run();
    expect(small.children.map((c) => c.name)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9']);

    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const running = createWorkflow({ name: 'slow' }, () => gate);
    let listed: readonly Workflow[] = [];
    const big = createWorkflow({ name: 'big' }, async (ctx) => {
      const slow = ctx.spawnWorkflow(running);
      for (let i = 0; i < 500; i += 1) await ctx.spawnWorkflow(createWorkflow({ name: `c${i}` }, () => i));
      listed = [...ctx.workflow.children];
      release();
      await slow;
    });
    await big.run();
    expect(listed.length).toBeLessThanOrEqual(65);
    expect(listed).toContain(running);
    expect(big.node.children).toHaveLength(501);
  });

  it('a workflow node keeps its own start and end as ids and rebuilds them as the events observers got', async () => {
    let child: Workflow | undefined;
    const parent = createWorkflow({ name: 'parent' }, async (ctx) => {
      child = createWorkflow({ name: 'child' }, async (c) => c.step('work', () => 1));
      await ctx.spawnWorkflow(child);
    });
    const rec = record(parent);
    await parent.run();
    const node = (child as Workflow).node;
    expect(historyOf(node)).toBeNull();
    expect(historyOf(node.children[0])).toBeNull();
    const live = rec.events.filter((e) => e.nodeId === node.id);
    expect(live.map((e) => e.type)).toEqual(['workflowStart', 'workflowEnd']);
    expect(node.events).toEqual(live);
    expect(JSON.stringify(node.events)).toBe(JSON.stringify(live));
  });

  it('keeps the order of the events when something follows the end, and across a second run', async () => {
    const wf = createWorkflow({ name: 'again' }, async (ctx) => ctx.step('s', () => 1));
    const rec = record(wf);
    await wf.run();
    await wf.run();
    wf.cancel('after the end');
    const own = (events: readonly WorkflowEvent[]): string[] =>
      events.filter((e) => e.nodeId === wf.id && e.type !== 'treeUpdated').map((e) => `${e.type}:${e.id}`);
    expect(own(wf.node.events)).toEqual(own(rec.events));
    expect(own(wf.node.events).map((label) => label.split(':')[0])).toEqual([
      'workflowStart',
      'workflowEnd',
      'workflowStart',
      'workflowEnd',
      'cancelled',
    ]);
    const ends = wf.node.events.filter((e) => e.type === 'workflowEnd');
    expect(ends).toEqual(rec.events.filter((e) => e.type === 'workflowEnd'));
  });
});
