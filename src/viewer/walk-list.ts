import type { WorkflowNode } from '../types/node.js';
import { addUsage, ZERO_USAGE } from '../util/usage.js';
import { leanEntry, type Known } from './known-entry.js';
import type { WireRow } from './wire-row.js';

/**
 * A walk's result, parents first. Most nodes (a step with no usage and nothing pruned) are their
 * node and row alone: an entry object for each of 20,000 nodes was a quarter of a run's last walk
 * and slowed the JSON after it (rows spread among them). Entries are made for them with the index.
 */
export interface Walk {
  readonly nodes: WorkflowNode[];
  readonly rows: WireRow[];
  /** null: the node had no usage, pruned nothing and its subtree spent nothing (see `leanEntry`). */
  readonly entries: (Known | null)[];
  /** Each node's parent, by place (-1: the root). */
  readonly parents: number[];
}

export function emptyWalk(): Walk {
  return { nodes: [], rows: [], entries: [], parents: [] };
}

/** The entries of `walk` from place `from` on, made where the walk left none. */
export function entriesFrom(walk: Walk, from: number): Known[] {
  const out: Known[] = [];
  for (let i = from; i < walk.nodes.length; i += 1) out.push(walk.entries[i] ?? leanEntry(walk.nodes[i] as WorkflowNode, walk.rows[i] as WireRow));
  return out;
}

/**
 * Each entry's subtree usage, from `order` (parents before children, as a walk met them) and each
 * entry's parent by place (-1: the root). Children come after their parents, so a reverse pass
 * has every child's total before its parent's. A subtree is a run of `size` entries, so a parent
 * finds its children, in order (the sum's order: costs are floats), by skipping each child's subtree.
 */
export function sumTotals(order: readonly Known[], parentAt: readonly number[]): void {
  const size = new Array<number>(order.length).fill(1);
  const spentBelow = new Array<boolean>(order.length).fill(false);
  for (let i = order.length - 1; i >= 0; i -= 1) {
    const entry = order[i] as Known;
    if (spentBelow[i] === true) {
      let total = entry.own;
      for (let child = i + 1, end = i + (size[i] as number); child < end; child += size[child] as number) {
        const sub = (order[child] as Known).total;
        if (sub !== undefined) total = addUsage(total ?? ZERO_USAGE, sub);
      }
      entry.total = total;
    }
    const up = parentAt[i] as number;
    if (up < 0) continue;
    size[up] = (size[up] as number) + (size[i] as number);
    if (entry.total !== undefined) spentBelow[up] = true;
  }
}
