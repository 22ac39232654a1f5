import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, exportRun, type Workflow } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { serveViewer, type NodeRow, type Viewer } from 'groundswell/viewer';
import type { WorkflowEvent } from '../../src/types/events.js';
import type { WorkflowNode } from '../../src/types/node.js';
import type { WorkflowObserver } from '../../src/types/observer.js';
import type { WorkflowStatus } from '../../src/types/status.js';
import { deferred } from '../support/deferred.js';
import { get, openEvents, rowsOf, type EventStream } from './http-get.js';
import { releaseRun } from './release-run.js';

let viewer: Viewer | undefined;
afterEach(async () => {
  await viewer?.close();
  viewer = undefined;
});

/** A tree node that counts how often the viewer reads it: the work a batch does. */
class CountedNode implements WorkflowNode {
  static reads = 0;
  readonly kind = 'step' as const;
  readonly workflowId = 'wf';
  readonly children: CountedNode[] = [];
  readonly logs = [];
  readonly stateSnapshot = null;
  readonly usage = null;
  readonly dropped = { events: 0, logs: 0, children: 0 };
  private current: WorkflowStatus = 'running';
  constructor(
    readonly id: string,
    readonly name: string,
    readonly parent: CountedNode | null,
  ) {
    parent?.children.push(this);
  }
  get status(): WorkflowStatus {
    CountedNode.reads += 1;
    return this.current;
  }
  set status(status: WorkflowStatus) {
    this.current = status;
  }
  get events(): WorkflowEvent[] {
    CountedNode.reads += 1;
    return [];
  }
  toJSON(): never {
    throw new Error('not exported in this test');
  }
}

/** The rows a page holds after applying the snapshot and every batch so far. */
function pageRows(stream: EventStream): Map<string, NodeRow> {
  const rows = new Map<string, NodeRow>();
  for (const message of stream.messages) {
    if (message.event === 'snapshot') {
      rows.clear();
      for (const row of rowsOf(message, 'rows')) rows.set(row.id, row);
    } else if (message.event === 'nodes') {
      const { removed } = message.data as { removed: string[] | 'all' };
      if (removed === 'all') rows.clear();
      else for (const id of removed) rows.delete(id);
      for (const row of rowsOf(message, 'upserted')) rows.set(row.id, row);
    }
  }
  return rows;
}

/**
 * Watches `run` from a page of `viewer` in two parts: once `reached` resolves and the row named
 * `first` shows completed, `release` lets the run go on to its end. The rows the watching page then
 * holds, and those of a page opened on a viewer that first sees the finished run.
 */
async function watchInTwoParts(
  on: Viewer,
  run: Workflow<unknown>,
  held: { reached: Promise<void>; release: () => void; first: string },
): Promise<{ watched: Map<string, NodeRow>; later: Map<string, NodeRow> }> {
  on.attach(run);
  const watching = await openEvents(on.url);
  await watching.next((m) => m.event === 'snapshot');
  const running = run.run();
  await held.reached;
  await watching.next((m) => m.event === 'nodes' && rowsOf(m, 'upserted').some((r) => r.name === held.first && r.status === 'completed'));
  held.release();
  await running;
  await watching.next((m) => m.event === 'nodes' && rowsOf(m, 'upserted').some((r) => r.id === run.node.id && r.status === 'completed'));
  const watched = pageRows(watching);
  watching.drop();
  const other = await serveViewer();
  try {
    other.attach(run);
    const opened = await openEvents(other.url);
    await opened.next((m) => m.event === 'snapshot');
    const later = pageRows(opened);
    opened.drop();
    return { watched, later };
  } finally {
    await other.close();
  }
}

describe('viewer batches', () => {
  it('cost what changed (one changed node among 2,001 is read and sent alone) and keep a watching page equal to a fresh one', async () => {
    const root = new CountedNode('root', 'root', null);
    const nodes = Array.from({ length: 2000 }, (_, i) => new CountedNode(`n${i}`, `item ${i}`, root));
    let observer: WorkflowObserver = {};
    viewer = await serveViewer({ batchMs: 20 });
    viewer.attach({ root: { node: root, addObserver: (o) => ((observer = o), () => undefined) } });
    const stream = await openEvents(viewer.url);
    const snapshot = await stream.next((m) => m.event === 'snapshot');
    expect(rowsOf(snapshot, 'rows')).toHaveLength(2001);

    const target = nodes[1234] as CountedNode;
    target.status = 'completed';
    CountedNode.reads = 0;
    observer.onEvent?.({ id: 1, type: 'stepEnd', nodeId: target.id } as WorkflowEvent, target);
    const batch = await stream.next((m) => m.event === 'nodes');
    expect(rowsOf(batch, 'upserted').map((r) => `${r.name}:${r.status}`)).toEqual(['item 1234:completed']);
    // One row rebuilt (its status and event count), not a walk of the tree.
    expect(CountedNode.reads).toBeLessThanOrEqual(4);
    stream.drop();
    await viewer.close();

    // Updated in place, a watching page must still equal a fresh one: pruned children go, usage rolls up.
    viewer = await serveViewer({ batchMs: 10 });
    const { workflow, gathered } = releaseRun();
    const gate = deferred<void>();
    // Retention prunes finished children while the page watches: their rows must leave the page.
    const pruning = createWorkflow({ name: 'pruning', retention: { maxChildrenPerNode: 5 } }, async (ctx) => {
      for (let i = 0; i < 60; i += 1) {
        await ctx.step(`p${i}`, () => i);
        if (i === 30) await gate.promise;
      }
    });
    const both = createWorkflow({ name: 'both' }, async (ctx) => {
      await ctx.spawnWorkflow(pruning);
      await ctx.spawnWorkflow(workflow);
    });
    viewer.attach(both);
    const watching = await openEvents(viewer.url);
    await watching.next((m) => m.event === 'snapshot');
    const running = both.run();
    await watching.next((m) => m.event === 'nodes' && rowsOf(m, 'upserted').some((r) => r.name === 'p30'));
    gate.resolve();
    gathered.resolve();
    await running;
    await watching.next((m) => m.event === 'nodes' && rowsOf(m, 'upserted').some((r) => r.name === 'both' && r.status === 'completed'));
    const fresh = await openEvents(viewer.url);
    await fresh.next((m) => m.event === 'snapshot');
    const tree = JSON.parse((await get(new URL('/api/tree', viewer.url).href)).body) as { rows: NodeRow[] };
    const expected = new Map(tree.rows.map((r) => [r.id, r]));
    expect(pageRows(watching)).toEqual(expected);
    expect(pageRows(fresh)).toEqual(expected);
    expect([...expected.values()].filter((r) => r.name.startsWith('p')).length).toBeLessThan(30);
    const top = expected.get(both.node.id);
    expect(top?.usage?.inputTokens).toBeGreaterThan(0);
    watching.drop();
    fresh.drop();
  });

  it("show a replaced agent call beneath the call that replaced it, with its tokens in that call's total, as a page opened later does", async () => {
    const Title = z.object({ title: z.string() });
    const model = new ScriptedModel([json({ title: 'Ok' }), json({ title: 'Tides of the North Sea' })]);
    const agent = createAgent({ name: 'writer', client: model.client() });
    viewer = await serveViewer({ batchMs: 10 });
    const drafted = deferred<void>();
    const go = deferred<void>();
    const titles = createWorkflow({ name: 'titles' }, async (ctx) => {
      // Enough steps before it that later batches look at the changed nodes alone, not walk the tree.
      for (let i = 0; i < 30; i += 1) await ctx.step(`s${i}`, () => i);
      await ctx.step('draft', () => agent.prompt(createPrompt({ name: 'draft', user: 'Write a title.', responseFormat: Title })));
      drafted.resolve();
      await go.promise;
      // Only the new call reports the move: the old call's node has no event of its own.
      await ctx.step('improve', () => ctx.replaceLastPromptResult(createPrompt({ name: 'better', user: 'Longer.', responseFormat: Title }), agent));
    });
    const { watched: rows, later } = await watchInTwoParts(viewer, titles, { reached: drafted.promise, release: go.resolve, first: 'writer: draft' });
    const named = (name: string): NodeRow | undefined => [...rows.values()].find((r) => r.name === name);
    const better = named('writer: better');
    const draft = named('writer: draft');
    expect(draft?.parentId).toBe(better?.id);
    expect(better?.usage?.inputTokens).toBe(2 * (draft?.usage?.inputTokens ?? Number.NaN));
    // The same rows a page gets from a viewer that first sees the finished run.
    expect(rows).toEqual(later);
  });

  it('never show a step that started and was pruned between two batches', async () => {
    viewer = await serveViewer({ batchMs: 10 });
    const sent = deferred<void>();
    const go = deferred<void>();
    const run = createWorkflow({ name: 'long' }, async (ctx) => {
      // A tree large enough that the next batch looks at the new nodes alone.
      for (let i = 0; i < 300; i += 1) await ctx.step(`early ${i}`, () => i);
      sent.resolve();
      await go.promise;
      // Within one batch: a new workflow whose retention drops most of its steps as they finish.
      await ctx.spawnWorkflow(
        createWorkflow({ name: 'pruning', retention: { maxChildrenPerNode: 5 } }, async (child) => {
          for (let i = 0; i < 40; i += 1) await child.step(`late ${i}`, () => i);
        }),
      );
    });
    const { watched: rows, later } = await watchInTwoParts(viewer, run, { reached: sent.promise, release: go.resolve, first: 'early 299' });
    const late = [...rows.values()].filter((r) => r.name.startsWith('late '));
    expect(late.length).toBeLessThan(40);
    expect([...rows.values()].find((r) => r.name === 'pruning')?.parentId).toBe(run.node.id);
    expect(rows).toEqual(later);
  });

  it('start a watching page afresh when another run is attached: none of the old rows stay', async () => {
    viewer = await serveViewer({ batchMs: 10 });
    const first = createWorkflow({ name: 'first' }, async (ctx) => {
      for (let i = 0; i < 20; i += 1) await ctx.step(`a${i}`, () => i);
    });
    viewer.attach(first);
    const watching = await openEvents(viewer.url);
    await watching.next((m) => m.event === 'snapshot');
    await first.run();
    await watching.next((m) => m.event === 'nodes' && rowsOf(m, 'upserted').some((r) => r.name === 'first' && r.status === 'completed'));
    const second = createWorkflow({ name: 'second' }, async (ctx) => {
      for (let i = 0; i < 5; i += 1) await ctx.step(`b${i}`, () => i);
    });
    viewer.attach(second);
    await second.run();
    await watching.next((m) => m.event === 'nodes' && rowsOf(m, 'upserted').some((r) => r.name === 'second' && r.status === 'completed'));
    const rows = [...pageRows(watching).values()];
    expect(rows.map((r) => r.name)).toEqual(['second', 'b0', 'b1', 'b2', 'b3', 'b4']);
    const tree = JSON.parse((await get(new URL('/api/tree', viewer.url).href)).body) as { rows: NodeRow[] };
    expect(rows).toEqual(tree.rows);
    watching.drop();
  });
});

describe("a live run's end", () => {
  it('reaches an open page at once, not at the next batch', async () => {
    // A batch interval no test would wait out: the end must not depend on it.
    viewer = await serveViewer({ batchMs: 60_000 });
    const gate = deferred<void>();
    const run = createWorkflow({ name: 'short' }, async (ctx) => {
      await gate.promise;
      return ctx.step('only', () => 1);
    });
    viewer.attach(run);
    const page = await openEvents(viewer.url);
    await page.next((m) => m.event === 'snapshot');
    const done = run.run();
    gate.resolve();
    await done;
    const end = await page.next((m) => m.event === 'nodes' && rowsOf(m, 'upserted').some((r) => r.name === 'short' && r.status === 'completed'));
    expect(rowsOf(end, 'upserted').map((r) => `${r.name}:${r.status}`)).toContain('only:completed');
    page.drop();
  });

  it('of another run attached while a page is open: the page shows the new run at once, not at the next batch', async () => {
    viewer = await serveViewer({ batchMs: 60_000 });
    const first = createWorkflow({ name: 'first' }, async (ctx) => ctx.step('a', () => 1));
    viewer.attach(first);
    await first.run();
    const page = await openEvents(viewer.url);
    await page.next((m) => m.event === 'snapshot');
    const second = createWorkflow({ name: 'second' }, async (ctx) => ctx.step('b', () => 2));
    viewer.attach(second);
    const shown = await page.next((m) => m.event === 'nodes' && (m.data as { removed: unknown }).removed === 'all');
    expect(rowsOf(shown, 'upserted').map((r) => `${r.name}:${r.status}`)).toEqual(['second:idle']);
    await second.run();
    await page.next((m) => m.event === 'nodes' && rowsOf(m, 'upserted').some((r) => r.name === 'second' && r.status === 'completed'));
    expect([...pageRows(page).values()].map((r) => `${r.name}:${r.status}`)).toEqual(['second:completed', 'b:completed']);
    page.drop();
  });
});

describe('start times on the stream', () => {
  it('count from the shown run, so a run from long ago reads back to the microsecond as small whole numbers', async () => {
    const wf = createWorkflow({ name: 'old run' }, async (ctx) => {
      await ctx.step('first', () => 1);
      await ctx.step('second', () => 2);
    });
    await wf.run();
    const run = exportRun(wf.node);
    // A run shown a year after it ran (a viewer open that long would count the same way).
    const yearAgo = Date.now() - 365 * 24 * 3_600_000;
    const [first, second] = run.root.children;
    if (first === undefined || second === undefined) throw new Error('two steps expected');
    Object.assign(run.root, { startTime: yearAgo + 0.25, endTime: yearAgo + 9.5, duration: 9.25 });
    Object.assign(first, { startTime: yearAgo + 1.125, endTime: yearAgo + 2, duration: 0.875 });
    Object.assign(second, { startTime: yearAgo + 2.5, endTime: yearAgo + 9, duration: 6.5 });
    viewer = await serveViewer();
    viewer.show(run);
    const page = await openEvents(viewer.url);
    const snapshot = await page.next((m) => m.event === 'snapshot');
    page.drop();
    expect(rowsOf(snapshot, 'rows').map((r) => [r.name, r.startTime, r.duration])).toEqual([
      ['old run', yearAgo + 0.25, 9.25],
      ['first', yearAgo + 1.125, 0.875],
      ['second', yearAgo + 2.5, 6.5],
    ]);
    // On the wire: microseconds after the run's start, not after the viewer's.
    const starts = (snapshot.data as { rows: unknown[][] }).rows.map((row) => row[7]);
    expect(starts.every((us) => Number.isInteger(us) && Math.abs(us as number) < 100_000)).toBe(true);
  });
});

describe('names on the stream', () => {
  it('arrive as they are, ASCII or not, in the first snapshot and in batches', async () => {
    const release = deferred<void>();
    const wf = createWorkflow({ name: 'ascii only' }, async (ctx) => {
      await ctx.step('plain step', () => 1);
      await release.promise;
      await ctx.step('café ☕ 名前 "quoted"', () => 2);
    });
    viewer = await serveViewer({ batchMs: 10 });
    viewer.attach(wf);
    const running = wf.run();
    const page = await openEvents(viewer.url);
    try {
      const first = await page.next((m) => m.event === 'snapshot');
      expect(rowsOf(first, 'rows').map((r) => r.name)).toEqual(['ascii only', 'plain step']);
      release.resolve();
      await running;
      const end = await page.next((m) => m.event === 'nodes' && rowsOf(m, 'upserted').some((r) => r.name === 'ascii only' && r.status === 'completed'));
      const tree = JSON.parse((await get(new URL('/api/tree', viewer.url).href)).body) as { rows: NodeRow[] };
      expect(tree.rows.map((r) => r.name)).toEqual(['ascii only', 'plain step', 'café ☕ 名前 "quoted"']);
      expect(page.messages.flatMap((m) => rowsOf(m, m.event === 'snapshot' ? 'rows' : 'upserted')).map((r) => r.name)).toContain('café ☕ 名前 "quoted"');
      expect(rowsOf(end, 'upserted').length).toBeGreaterThan(0);
    } finally {
      page.drop();
    }
  });
});
