import type { WorkflowNode } from '../types/node.js';
import type { TokenUsage } from '../types/usage.js';
import { rowShows, wireRow } from './node-row.js';
import { ownPart } from './subtree-usage.js';
import type { WireRow } from './wire-row.js';

/** One node as last sent: its row, its part of the usage rollup and the children sent under it. */
export interface Known {
  readonly node: WorkflowNode;
  row: WireRow;
  parentId: string | null;
  /** `node.usage` when `own` was computed: a new object means new own usage. */
  usage: TokenUsage | null;
  own: TokenUsage | undefined;
  total: TokenUsage | undefined;
  droppedChildren: number;
  /**
   * Allocated with the first child: most nodes are leaves. A list, not a set: a walk adds every
   * node once, and a removal (retention, a moved prompt) is rare beside it.
   */
  kids: string[] | null;
}

/** A node's entry as a walk or a batch first meets it. */
export function newKnown(node: WorkflowNode, timeBase: number): Known {
  const made = entryOrRow(node, timeBase);
  return isRow(made) ? leanEntry(node, made) : made;
}

/**
 * What a walk keeps of a node it builds again: its entry, or its row alone when the entry would
 * say nothing more (no usage, nothing pruned), as most nodes are: no object per step at a run's end.
 */
export function entryOrRow(node: WorkflowNode, timeBase: number): Known | WireRow {
  // Each field of the node read once: at a run's end the nodes are cold, and a read costs.
  const dropped = node.dropped;
  const usage = node.usage;
  const own = ownPart(usage, dropped);
  const row = wireRow(node, own, timeBase, dropped);
  if (usage === null && own === undefined && dropped.children === 0) return row;
  return { node, row, parentId: row[1], usage, own, total: own, droppedChildren: dropped.children, kids: null };
}

export function isRow(made: Known | WireRow): made is WireRow {
  return Array.isArray(made);
}

/** The entry of a node a walk left without one: what `newKnown` would have made of it then. */
export function leanEntry(node: WorkflowNode, row: WireRow): Known {
  return { node, row, parentId: row[1], usage: null, own: undefined, total: undefined, droppedChildren: 0, kids: null };
}

/** Whether a sent entry's row and own usage still hold for its node (which may have new children). */
export function stillShows(sent: Known, timeBase: number): boolean {
  const node = sent.node;
  const dropped = node.dropped;
  // Pruned children's usage is summed into a new object on each look: such a node is built again.
  if (dropped.usage !== undefined || node.usage !== sent.usage || dropped.children !== sent.droppedChildren) return false;
  return rowShows(sent.row, node, timeBase, dropped);
}

/** `stillShows` for a node sent without an entry: still no usage, nothing pruned, the same row. */
export function showsLean(node: WorkflowNode, row: WireRow, timeBase: number): boolean {
  const dropped = node.dropped;
  return node.usage === null && dropped.usage === undefined && dropped.children === 0 && rowShows(row, node, timeBase, dropped);
}

/** A kept entry made ready for a walk: its children are listed again, its total summed again. */
export function renew(sent: Known): Known {
  sent.kids = null;
  sent.total = sent.own;
  sent.parentId = sent.row[1];
  return sent;
}

/** Takes `id` off the children listed under `parent`. */
export function dropKid(parent: Known | undefined, id: string): void {
  const kids = parent?.kids;
  if (kids === null || kids === undefined) return;
  const at = kids.indexOf(id);
  if (at >= 0) kids.splice(at, 1);
}

export function byNode(entries: Iterable<Known>): Map<WorkflowNode, Known> {
  const map = new Map<WorkflowNode, Known>();
  for (const entry of entries) map.set(entry.node, entry);
  return map;
}
