import { describe, expect, it } from 'vitest';
import type { WorkflowEvent } from '../../src/types/events.js';
import type { WorkflowNode } from '../../src/types/node.js';
import type { WorkflowStatus } from '../../src/types/status.js';
import type { TokenUsage } from '../../src/types/usage.js';
import { walkTree } from '../../src/util/tree-walk.js';
import { wireRow } from '../../src/viewer/node-row.js';
import type { TreeChanges } from '../../src/viewer/stream-messages.js';
import { ViewerModel } from '../../src/viewer/viewer-model.js';
import { applyBatch } from './apply-batch.js';
import type { WireRow } from '../../src/viewer/wire-row.js';
import { seeded } from '../support/seeded.js';

/**
 * The viewer's model keeps a page up to date by sending only what changed, with several shortcuts
 * (a walk that meets the last walk's entries by a cursor, rows kept without entries, an index made
 * on first use, small batches that look at changed nodes alone). Whatever the order of changes,
 * the rows a page holds after applying every batch must be the rows of the tree as it is now.
 * Random trees and changes, each batch checked against rows computed here from the tree alone.
 */

class FakeNode implements WorkflowNode {
  readonly kind = 'step' as const;
  readonly workflowId = 'wf';
  children: FakeNode[] = [];
  readonly logs = [];
  readonly events: WorkflowEvent[] = [];
  readonly stateSnapshot = null;
  usage: TokenUsage | null = null;
  dropped: { events: number; logs: number; children: number; usage?: TokenUsage } = { events: 0, logs: 0, children: 0 };
  startTime: number;
  duration?: number;
  replayed?: boolean;
  status: WorkflowStatus = 'running';
  constructor(
    readonly id: string,
    public name: string,
    public parent: FakeNode | null,
    startTime: number,
  ) {
    this.startTime = startTime;
    parent?.children.push(this);
  }
  toJSON(): never {
    throw new Error('not exported in this test');
  }
}

const tokens = (inputTokens: number): TokenUsage => ({ inputTokens, outputTokens: 2 * inputTokens, cacheCreationInputTokens: 0, cacheReadInputTokens: 1 });

function plus(a: TokenUsage | undefined, b: TokenUsage | null | undefined): TokenUsage | undefined {
  if (b === null || b === undefined) return a;
  if (a === undefined) return { ...b };
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheCreationInputTokens: a.cacheCreationInputTokens + b.cacheCreationInputTokens,
    cacheReadInputTokens: a.cacheReadInputTokens + b.cacheReadInputTokens,
  };
}

/** A subtree's tokens as the tree shows them: the node's own, what its pruned children spent, then each child's. */
function total(node: FakeNode): TokenUsage | undefined {
  let sum = plus(plus(undefined, node.usage), node.dropped.usage);
  for (const child of node.children) sum = plus(sum, total(child));
  return sum;
}

/** The rows of the tree as it is, parents first: what a page opened now would be sent. */
function expectedRows(root: FakeNode, timeBase: number): WireRow[] {
  return [...walkTree<FakeNode>(root)].map((node) => wireRow(node, total(node), timeBase));
}


const STATUSES: readonly WorkflowStatus[] = ['running', 'completed', 'failed', 'cancelled'];

/** One random life of a tree under an open page: `batches` batches of random changes. */
function life(seed: number, batches: number): void {
  const next = seeded(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  let made = 0;
  const root = new FakeNode('root', 'root', null, 1_000);
  const fresh = (parent: FakeNode): FakeNode => {
    made += 1;
    return new FakeNode(`n${made}`, `node ${made}`, parent, 1_000 + made * 0.25);
  };
  for (let i = 0; i < 1 + Math.floor(next() * 12); i += 1) fresh(pick([root, ...root.children]));

  const model = new ViewerModel();
  model.setRoot(root);
  const page = new Map<string, WireRow>();
  const check = (batch: number, changes: TreeChanges, what: string[]): void => {
    const context = `seed ${seed}, batch ${batch}: ${what.join(', ')}`;
    applyBatch(page, changes, context);
    const rows = expectedRows(root, model.timeBase);
    expect(new Map(page), context).toEqual(new Map(rows.map((row) => [row[0], row])));
    // Every id still in the tree has one row, and nothing else has.
    expect(page.size, context).toBe(rows.length);
  };
  check(0, model.refresh(), ['first batch']);

  for (let batch = 1; batch <= batches; batch += 1) {
    const what: string[] = [];
    const replaced = new Set<string>();
    const changes = 1 + Math.floor(next() * (next() < 0.3 ? 30 : 4));
    for (let c = 0; c < changes; c += 1) {
      const nodes = [...walkTree<FakeNode>(root)];
      const node = pick(nodes);
      const kind = next();
      if (kind < 0.3) {
        model.touch(fresh(node));
        what.push(`add under ${node.id}`);
      } else if (kind < 0.45) {
        node.status = pick(STATUSES);
        if (node.status !== 'running') node.duration = Math.round(next() * 5000) / 4;
        model.touch(node);
        what.push(`status ${node.id}`);
      } else if (kind < 0.55) {
        node.usage = next() < 0.2 ? null : tokens(1 + Math.floor(next() * 9));
        model.touch(node);
        what.push(`usage ${node.id}`);
      } else if (kind < 0.62) {
        node.events.push({} as WorkflowEvent);
        model.touch(node);
        what.push(`event ${node.id}`);
      } else if (kind < 0.75 && node.children.length > 0) {
        // Retention drops a child and its subtree; what it spent stays on the parent.
        const child = pick(node.children);
        node.children = node.children.filter((other) => other !== child);
        node.dropped = { ...node.dropped, children: node.dropped.children + 1, usage: plus(node.dropped.usage, total(child)) };
        model.touch(node);
        what.push(`prune ${child.id} from ${node.id}`);
      } else if (kind < 0.83 && node !== root) {
        // Moved under another node outside its own subtree (a replaced prompt's call).
        const mine = new Set(walkTree<FakeNode>(node));
        const to = pick(nodes.filter((other) => !mine.has(other)));
        const from = node.parent as FakeNode;
        from.children = from.children.filter((other) => other !== node);
        node.parent = to;
        to.children.push(node);
        model.touch(node);
        what.push(`move ${node.id} to ${to.id}`);
      } else if (kind < 0.9 && node !== root && page.has(node.id) && !replaced.has(node.id)) {
        // Another object for the same id, in the same place, with its children (a stored run's
        // tree; a live tree makes each id once). Only for a node sent before, once a batch.
        const parent = node.parent as FakeNode;
        const twin = new FakeNode(node.id, next() < 0.5 ? node.name : `${node.name}'`, null, node.startTime);
        twin.parent = parent;
        twin.children = node.children;
        for (const child of twin.children) child.parent = twin;
        twin.usage = node.usage;
        twin.status = node.status;
        if (node.duration !== undefined) twin.duration = node.duration;
        parent.children = parent.children.map((other) => (other === node ? twin : other));
        replaced.add(node.id);
        model.touch(twin);
        what.push(`replace ${node.id}`);
      } else {
        // Nobody was watching for a while: the next refresh walks everything.
        node.name = `${node.name}.`;
        model.invalidate();
        what.push(`rename ${node.id} unwatched`);
      }
    }
    check(batch, model.refresh(), what);
    if (next() < 0.3) {
      // A look-up by id after a batch (a page asking for a node's details): the node as it is now.
      const node = pick([...walkTree<FakeNode>(root)]);
      expect(model.node(node.id), `seed ${seed}, look-up after batch ${batch}`).toBe(node);
    }
    if (next() < 0.15) {
      // A page opened now gets the same rows, in the tree's order.
      expect(model.snapshot().rows, `seed ${seed}, snapshot after batch ${batch}`).toEqual(expectedRows(root, model.timeBase));
    }
  }
}

describe('the viewer model against random changes', () => {
  // 400 lives of 25 batches take about a second here; 12,000 lives of 40 batches passed once.
  it('leaves a page holding exactly the rows of the tree after every batch', { timeout: 60_000 }, () => {
    for (let seed = 1; seed <= 400; seed += 1) life(seed, 25);
  });
});
