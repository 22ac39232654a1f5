import { describe, expect, it } from 'vitest';
import { createWorkflow, Workflow, type WorkflowEvent } from 'groundswell';
import { record } from '../support/events.js';

// Structural checks on what a finished child keeps (issue: a parent spawning in a loop kept
// ~1.6 KB per finished child). Byte counts are left to bench W7; these say which objects stay.

/** The node's lazily made history (private); null when it holds nothing beyond its own start and end. */
function historyOf(node: unknown): unknown {
  return (node as { history: unknown }).history;
}

describe('what a finished child workflow keeps', () => {
  it("the parent's children list keeps every finished child until retention prunes its node, then forgets it", async () => {
    let listed: readonly Workflow[] = [];
    const big = createWorkflow({ name: 'big' }, async (ctx) => {
      for (let i = 0; i < 500; i += 1) await ctx.spawnWorkflow(createWorkflow({ name: `c${i}` }, () => i));
      listed = [...ctx.workflow.children];
    });
    await big.run();
    expect(listed.map((c) => c.name)).toEqual(Array.from({ length: 500 }, (_, i) => `c${i}`));

    let kept: readonly Workflow[] = [];
    const pruned = createWorkflow({ name: 'pruned', retention: { maxChildrenPerNode: 16 } }, async (ctx) => {
      for (let i = 0; i < 500; i += 1) await ctx.spawnWorkflow(createWorkflow({ name: `c${i}` }, () => i));
      kept = [...ctx.workflow.children];
    });
    await pruned.run();
    expect(kept.length).toBeLessThan(100);
    expect(kept.at(-1)?.name).toBe('c499');
    expect(kept.map((child) => child.name)).not.toContain('c0');
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

  it("a step's node rebuilds its end with the attempts it took, and an untimed step stays untimed", async () => {
    let calls = 0;
    const wf = createWorkflow({ name: 'retried' }, async (ctx) => {
      await ctx.step(
        'flaky',
        () => {
          calls += 1;
          if (calls < 3) throw new Error(`attempt ${calls} failed`);
          return calls;
        },
        { retry: { maxAttempts: 3, backoffMs: 0 } },
      );
      await ctx.step('untimed', () => 1, { trackTiming: false });
    });
    const rec = record(wf);
    await wf.run();
    const [flaky, untimed] = wf.node.children;
    const liveEnd = rec.events.find((e) => e.type === 'stepEnd' && e.nodeId === flaky?.id);
    expect(liveEnd).toMatchObject({ attempts: 3, status: 'completed' });
    expect(flaky?.events.filter((e) => e.type === 'stepEnd')).toEqual([liveEnd]);
    expect(flaky?.status).toBe('completed');
    expect(untimed?.startTime).toBeUndefined();
    expect(untimed?.duration).toBeUndefined();
    expect(untimed?.events.filter((e) => e.type === 'stepEnd')).toEqual(rec.events.filter((e) => e.type === 'stepEnd' && e.nodeId === untimed?.id));
  });

  it("a parent's childAttached and treeUpdated events, kept as numbers, read back as observers got them, across the ring's wrap", async () => {
    const parent = createWorkflow({ name: 'spawner', retention: { maxEventsPerNode: 9 } }, async (ctx) => {
      for (let i = 0; i < 12; i += 1) {
        await ctx.spawnWorkflow(createWorkflow({ name: `c${i}` }, () => i));
        // Events kept whole, between the packed ones.
        if (i % 5 === 0) ctx.workflow.snapshotState();
      }
    });
    const rec = record(parent);
    await parent.run();
    const live = rec.events.filter((e) => e.nodeId === parent.id);
    const kept = parent.node.events;
    expect(kept.length).toBeLessThan(live.length);
    // The first two, then the newest (the end rebuilt after them).
    const expected = [...live.slice(0, 2), ...live.slice(live.length - (kept.length - 2))];
    expect(kept).toEqual(expected);
    expect(JSON.stringify(kept)).toBe(JSON.stringify(expected));
    expect(kept.map((e) => e.type)).toContain('childAttached');
    expect(kept.map((e) => e.type)).toContain('treeUpdated');
    expect(parent.node.dropped.events).toBe(live.length - kept.length);
    expect(JSON.stringify(parent.toJSON().events)).toBe(JSON.stringify(expected));
  });

  it('an executor runs with its workflow as `this`, whether the config sets only a name or more', async () => {
    const seen: unknown[] = [];
    const body = function (this: unknown): number {
      seen.push(this);
      return seen.length;
    };
    const named = createWorkflow({ name: 'named' }, body);
    const configured = createWorkflow({ name: 'configured', retention: { maxEventsPerNode: 5 } }, body);
    expect(await named.run()).toBe(1);
    expect(await configured.run()).toBe(2);
    expect(seen).toEqual([named, configured]);
    expect(configured.name).toBe('configured');
  });
});

