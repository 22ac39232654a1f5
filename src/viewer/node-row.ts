import type { WorkflowNode } from '../types/node.js';
import type { NodeKind, WorkflowStatus } from '../types/status.js';
import type { TokenUsage } from '../types/usage.js';
import { sameUsage } from '../util/usage.js';

/** One line of the page's tree: what a row shows, without events, logs or state (those load on demand). */
export interface NodeRow {
  readonly id: string;
  readonly parentId: string | null;
  readonly name: string;
  readonly kind: NodeKind;
  readonly status: WorkflowStatus;
  readonly startTime?: number;
  readonly duration?: number;
  /** A node a durable run replayed: it ran in an earlier process, and its times are from then. */
  readonly replayed?: true;
  /** The subtree's tokens and cost (`usageRollup` semantics: own usage, pruned children, children). */
  readonly usage?: TokenUsage;
  /** How many events and logs the node has had (kept plus dropped): a change means new details. */
  readonly events: number;
  readonly logs: number;
}

/** `dropped` may be passed when the caller read it already (a live node builds it on each read). */
export function nodeRow(node: WorkflowNode, rollup: TokenUsage | undefined, dropped: WorkflowNode['dropped'] = node.dropped): NodeRow {
  const row: {
    -readonly [K in keyof NodeRow]: NodeRow[K];
  } = {
    id: node.id,
    parentId: node.parent?.id ?? null,
    name: node.name,
    kind: node.kind,
    status: node.status,
    events: eventCount(node) + dropped.events,
    logs: node.logs.length + dropped.logs,
  };
  if (node.startTime !== undefined) row.startTime = node.startTime;
  if (node.duration !== undefined) row.duration = node.duration;
  if (node.replayed === true) row.replayed = true;
  if (rollup !== undefined) row.usage = rollup;
  return row;
}

/** A live tree counts its events without rebuilding them; a loaded one has them as a list. */
function eventCount(node: WorkflowNode): number {
  const count = (node as { readonly eventCount?: unknown }).eventCount;
  return typeof count === 'number' ? count : node.events.length;
}

/** Whether two rows show the same thing: a batch sends only rows that differ from what was sent. */
export function sameRow(a: NodeRow, b: NodeRow): boolean {
  return (
    a.id === b.id &&
    a.parentId === b.parentId &&
    a.name === b.name &&
    a.kind === b.kind &&
    a.status === b.status &&
    a.startTime === b.startTime &&
    a.duration === b.duration &&
    a.replayed === b.replayed &&
    a.events === b.events &&
    a.logs === b.logs &&
    sameUsage(a.usage, b.usage)
  );
}

