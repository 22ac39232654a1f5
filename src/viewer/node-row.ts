import type { WorkflowNode } from '../types/node.js';
import type { NodeKind, WorkflowStatus } from '../types/status.js';
import type { TokenUsage } from '../types/usage.js';

/** One line of the page's tree: what a row shows, without events, logs or state (those load on demand). */
export interface NodeRow {
  readonly id: string;
  readonly parentId: string | null;
  readonly name: string;
  readonly kind: NodeKind;
  readonly status: WorkflowStatus;
  readonly startTime?: number;
  readonly duration?: number;
  /** The subtree's tokens and cost (`usageRollup` semantics: own usage, pruned children, children). */
  readonly usage?: TokenUsage;
  /** How many events and logs the node has had (kept plus dropped): a change means new details. */
  readonly events: number;
  readonly logs: number;
}

export function nodeRow(node: WorkflowNode, rollup: TokenUsage | undefined): NodeRow {
  const row: {
    -readonly [K in keyof NodeRow]: NodeRow[K];
  } = {
    id: node.id,
    parentId: node.parent?.id ?? null,
    name: node.name,
    kind: node.kind,
    status: node.status,
    events: node.events.length + node.dropped.events,
    logs: node.logs.length + node.dropped.logs,
  };
  if (node.startTime !== undefined) row.startTime = node.startTime;
  if (node.duration !== undefined) row.duration = node.duration;
  if (rollup !== undefined) row.usage = rollup;
  return row;
}
