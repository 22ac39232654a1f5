import { describe, expect, it } from 'vitest';
import type { WorkflowEvent } from '../../src/types/events.js';
import type { WorkflowNode } from '../../src/types/node.js';
import type { WorkflowStatus } from '../../src/types/status.js';
import type { TokenUsage } from '../../src/types/usage.js';
import { rowShows, wireRow } from '../../src/viewer/node-row.js';
import { ViewerModel } from '../../src/viewer/viewer-model.js';
import type { TreeChanges } from '../../src/viewer/stream-messages.js';
import type { WireRow } from '../../src/viewer/wire-row.js';

/** A tree node whose fields a test sets. */
class FakeNode implements WorkflowNode {
  readonly kind = 'step' as const;
  readonly workflowId = 'wf';
  readonly children: FakeNode[] = [];
  readonly logs = [];
  readonly events: WorkflowEvent[] = [];
  readonly stateSnapshot = null;
  usage: TokenUsage | null = null;
  dropped: { events: number; logs: number; children: number; usage?: TokenUsage } = { events: 0, logs: 0, children: 0 };
  startTime = 1_000;
  status: WorkflowStatus = 'running';
  constructor(
    readonly id: string,
    readonly name: string,
    readonly parent: FakeNode | null,
  ) {
    parent?.children.push(this);
  }
  toJSON(): never {
    throw new Error('not exported in this test');
  }
}

const usage = (inputTokens: number): TokenUsage => ({ inputTokens, outputTokens: 1, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 });

/** The rows a page holds after a batch, applied as the page does: removals first. */
function apply(rows: Map<string, WireRow>, changes: TreeChanges): void {
  if (changes.removed === 'all') rows.clear();
  else for (const id of changes.removed) rows.delete(id);
  for (const row of changes.upserted) rows.set(row[0], row);
}

describe('a refresh that walks the whole tree after an earlier batch', () => {
  it('sends only the rows that differ, keeps the rows it sent for the rest, and leaves the page equal to a fresh snapshot', () => {
    const root = new FakeNode('root', 'root', null);
    const old = Array.from({ length: 300 }, (_, i) => new FakeNode(`o${i}`, `old ${i}`, root));
    const model = new ViewerModel();
    model.setRoot(root);
    const page = new Map<string, WireRow>();
    const first = model.refresh();
    apply(page, first);
    expect(first.upserted).toHaveLength(301);
    const sent = new Map(first.upserted.map((row) => [row[0], row]));

    // More than a third of the tree changes (a run's steps between two batches): the refresh walks.
    const added = Array.from({ length: 400 }, (_, i) => new FakeNode(`n${i}`, `new ${i}`, root));
    (old[5] as FakeNode).status = 'completed';
    (old[6] as FakeNode).usage = usage(7);
    // Retention pruned one child: its row goes, its parent's row is built again.
    root.children.splice(root.children.indexOf(old[9] as FakeNode), 1);
    root.dropped = { events: 0, logs: 0, children: 1 };
    for (const node of [...added, old[5], old[6], root] as FakeNode[]) model.touch(node);
    const second = model.refresh();
    apply(page, second);

    expect(second.removed).toEqual(['o9']);
    expect(second.upserted.map((row) => row[0])).toEqual(['root', 'o5', 'o6', ...added.map((node) => node.id)]);
    expect(second.upserted[0]?.[10]?.inputTokens).toBe(7);
    // Unchanged nodes keep the very rows sent before.
    expect(model.snapshot().rows.find((row) => row[0] === 'o7')).toBe(sent.get('o7'));
    expect(page).toEqual(new Map(model.snapshot().rows.map((row) => [row[0], row])));

    // A kept row whose subtree's usage changed is sent again, and one whose usage did not is not;
    // a row built again (new usage, the same numbers) that equals the one sent is not sent.
    const leaf = new FakeNode('leaf', 'leaf', added[0] as FakeNode);
    leaf.usage = usage(3);
    (old[6] as FakeNode).usage = usage(7);
    const o6 = model.snapshot().rows.find((row) => row[0] === 'o6');
    for (const node of root.children) model.touch(node);
    model.touch(leaf);
    const third = model.refresh();
    apply(page, third);
    expect(third.upserted.map((row) => row[0])).toEqual(['root', 'n0', 'leaf']);
    expect(third.upserted[0]?.[10]?.inputTokens).toBe(10);
    expect(third.removed).toEqual([]);
    expect(model.snapshot().rows.find((row) => row[0] === 'o6')).toBe(o6);
    expect(page).toEqual(new Map(model.snapshot().rows.map((row) => [row[0], row])));
  });

  it('sends the rows of a subtree whose usage went away without usage once nothing in the tree has any', () => {
    const root = new FakeNode('root', 'root', null);
    const parent = new FakeNode('p', 'parent', root);
    const leaf = new FakeNode('leaf', 'leaf', parent);
    const other = new FakeNode('other', 'other', root);
    leaf.usage = usage(4);
    const model = new ViewerModel();
    model.setRoot(root);
    const page = new Map<string, WireRow>();
    apply(page, model.refresh());
    expect([...page.values()].map((row) => `${row[0]}:${row[10]?.inputTokens ?? '-'}`)).toEqual(['root:4', 'p:4', 'leaf:4', 'other:-']);

    leaf.usage = null;
    model.invalidate();
    const after = model.refresh();
    apply(page, after);
    expect(after.upserted.map((row) => row[0])).toEqual(['root', 'p', 'leaf']);
    expect([...page.values()].map((row) => `${row[0]}:${row[10]?.inputTokens ?? '-'}`)).toEqual(['root:-', 'p:-', 'leaf:-', 'other:-']);
    expect(page).toEqual(new Map(model.snapshot().rows.map((row) => [row[0], row])));
  });

  /** Three groups of four steps under a root, walked once (nothing looked up since, so no index). */
  function walkedGroups(): { root: FakeNode; groups: FakeNode[]; steps: FakeNode[]; model: ViewerModel; page: Map<string, WireRow> } {
    const root = new FakeNode('root', 'root', null);
    const groups = Array.from({ length: 3 }, (_, g) => new FakeNode(`g${g}`, `group ${g}`, root));
    const steps = groups.flatMap((group, g) => Array.from({ length: 4 }, (_, i) => new FakeNode(`s${g}.${i}`, `step ${g}.${i}`, group)));
    const model = new ViewerModel();
    model.setRoot(root);
    const page = new Map<string, WireRow>();
    apply(page, model.refresh());
    return { root, groups, steps, model, page };
  }

  it('after a walk with no batch between, meets the sent rows among nodes added anywhere', () => {
    const { root, groups, steps, model, page } = walkedGroups();
    const sent = new Map(page);
    const g0 = groups[0] as FakeNode;
    new FakeNode('a0', 'added 0', g0);
    g0.children.unshift(g0.children.pop() as FakeNode);
    new FakeNode('a1', 'added 1', steps[5] as FakeNode);
    new FakeNode('a2', 'added 2', root);
    (steps[6] as FakeNode).status = 'completed';
    model.invalidate();
    const second = model.refresh();
    apply(page, second);
    // Only the new rows and the finished step's go; the others are the very rows sent before.
    expect(second.upserted.map((row) => row[0])).toEqual(['a0', 'a1', 's1.2', 'a2']);
    expect(second.removed).toEqual([]);
    expect(model.snapshot().rows.filter((row) => row[0] !== 's1.2' && row !== sent.get(row[0])).map((row) => row[0])).toEqual(['a0', 'a1', 'a2']);
    expect(page).toEqual(new Map(model.snapshot().rows.map((row) => [row[0], row])));
  });

  it('after a walk with no batch between, sends a node that spent since, and its ancestors, with the usage', () => {
    const { steps, model, page } = walkedGroups();
    (steps[3] as FakeNode).usage = usage(2);
    model.invalidate();
    const next = model.refresh();
    apply(page, next);
    expect(next.upserted.map((row) => `${row[0]}:${row[10]?.inputTokens}`)).toEqual(['root:2', 'g0:2', 's0.3:2']);
    expect(page).toEqual(new Map(model.snapshot().rows.map((row) => [row[0], row])));
  });

  it('after a walk with no batch between, sends a moved node again and finds a replaced one by id', () => {
    const { groups, steps, model, page } = walkedGroups();
    const [g0, , g2] = groups as [FakeNode, FakeNode, FakeNode];
    // A step moved to another group (a replaced prompt), and a node object replaced by another of
    // the same id, both ahead of the nodes after them.
    const moved = steps[1] as FakeNode;
    g0.children.splice(g0.children.indexOf(moved), 1);
    (moved as { parent: FakeNode | null }).parent = g2;
    g2.children.push(moved);
    const twin = new FakeNode('s0.2', 'step 0.2', g0);
    g0.children.splice(g0.children.indexOf(steps[2] as FakeNode), 1);
    g0.children.splice(1, 0, g0.children.pop() as FakeNode);
    model.invalidate();
    const next = model.refresh();
    apply(page, next);
    expect(next.upserted.map((row) => `${row[0]}<${row[1]}`)).toEqual(['s0.1<g2']);
    expect(next.removed).toEqual([]);
    expect(model.node('s0.1')).toBe(moved);
    expect(model.node('s0.2')).toBe(twin);
    expect(page).toEqual(new Map(model.snapshot().rows.map((row) => [row[0], row])));
  });

  it("after a walk, a small batch sums a parent's usage over all its children and drops a pruned child", () => {
    const root = new FakeNode('root', 'root', null);
    const kids = Array.from({ length: 6 }, (_, i) => new FakeNode(`k${i}`, `kid ${i}`, root));
    for (const kid of kids) kid.usage = usage(1);
    const model = new ViewerModel();
    model.setRoot(root);
    const page = new Map<string, WireRow>();
    apply(page, model.refresh());
    expect(page.get('root')?.[10]?.inputTokens).toBe(6);

    // One node of seven changed: looked at alone, its parent's total summed over every child.
    (kids[2] as FakeNode).usage = usage(5);
    model.touch(kids[2] as FakeNode);
    const small = model.refresh();
    apply(page, small);
    expect(small.upserted.map((row) => `${row[0]}:${row[10]?.inputTokens}`)).toEqual(['k2:5', 'root:10']);

    // Retention pruned the first child: its row goes, its usage stays in the parent's total.
    root.children.splice(0, 1);
    root.dropped = { events: 0, logs: 0, children: 1, usage: usage(1) };
    model.touch(root);
    const pruned = model.refresh();
    apply(page, pruned);
    expect(pruned.removed).toEqual(['k0']);
    expect(page.get('root')?.[10]?.inputTokens).toBe(10);
    expect(page).toEqual(new Map(model.snapshot().rows.map((row) => [row[0], row])));
  });

  it('finds every node after a walk: a small batch, a node by id, a page opened, another root', () => {
    const root = new FakeNode('root', 'root', null);
    const steps = Array.from({ length: 30 }, (_, i) => new FakeNode(`s${i}`, `step ${i}`, root));
    const model = new ViewerModel();
    model.setRoot(root);
    const page = new Map<string, WireRow>();
    apply(page, model.refresh());
    expect(model.node('s17')).toBe(steps[17]);
    expect(model.snapshot().rows.map((row) => row[0])).toEqual(['root', ...steps.map((node) => node.id)]);

    // One change among 31 rows: looked at alone, through the entries the walk left.
    (steps[3] as FakeNode).status = 'completed';
    model.touch(steps[3] as FakeNode);
    const small = model.refresh();
    apply(page, small);
    expect(small.upserted.map((row) => `${row[0]}:${row[4]}`)).toEqual(['s3:completed']);
    expect(page).toEqual(new Map(model.snapshot().rows.map((row) => [row[0], row])));

    // A node object replaced by another of the same id: a walk finds its sent row by id, and sends
    // the new node's row only where it differs.
    const same = new FakeNode('s4', 'step 4', root);
    const renamed = new FakeNode('s5', 'step five', root);
    root.children.splice(4, 2, ...root.children.splice(-2));
    model.invalidate();
    const replaced = model.refresh();
    apply(page, replaced);
    expect(replaced.upserted.map((row) => `${row[0]}:${row[2]}`)).toEqual(['s5:step five']);
    expect(replaced.removed).toEqual([]);
    expect(model.node('s4')).toBe(same);
    expect(page).toEqual(new Map(model.snapshot().rows.map((row) => [row[0], row])));

    // A walk, then another root at once: the old rows go as 'all', none left behind.
    model.invalidate();
    model.refresh();
    const other = new FakeNode('other', 'other', null);
    model.setRoot(other);
    const next = model.refresh();
    expect(next.removed).toBe('all');
    expect(next.upserted.map((row) => row[0])).toEqual(['other']);
    expect(model.node('s3')).toBeUndefined();
  });
});

describe('rowShows, the check a walk makes instead of building a row', () => {
  it('agrees with wireRow on every field but the usage, so a new field cannot be forgotten in one of them', () => {
    const node = new FakeNode('n1', 'step 1', new FakeNode('root', 'root', null));
    const timeBase = 500;
    expect(rowShows(wireRow(node, undefined, timeBase), node, timeBase)).toBe(true);
    // Every field present: a replayed node with usage (a row leaves out defaults at its end).
    (node as { replayed?: boolean }).replayed = true;
    const row = wireRow(node, usage(1), timeBase);
    expect(row).toHaveLength(11);
    expect(rowShows(row, node, timeBase)).toBe(true);
    // The usage is last and summed again by the caller; every other field must be compared.
    for (let at = 0; at < row.length - 1; at += 1) {
      const other = [...row] as unknown[];
      other[at] = typeof row[at] === 'number' ? (row[at] as number) + 1 : `${String(row[at])}?`;
      expect(rowShows(other as unknown as WireRow, node, timeBase), `field ${at}`).toBe(false);
    }
  });
});
