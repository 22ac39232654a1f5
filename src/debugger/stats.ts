import type { WorkflowNode } from '../types/node.js';
import type { NodeKind, WorkflowStatus } from '../types/status.js';
import type { TokenUsage } from '../types/usage.js';
import { walkTree } from '../util/tree-walk.js';
import { addUsage, ZERO_USAGE } from '../util/usage.js';

export interface TreeStats {
  nodes: number;
  byKind: Partial<Record<NodeKind, number>>;
  byStatus: Record<WorkflowStatus, number>;
  events: number;
  logs: number;
  /** Entries and nodes dropped by retention limits. */
  dropped: { events: number; logs: number; children: number };
  maxDepth: number;
  /** Tokens (and cost, when priced) of the whole tree. */
  usage: TokenUsage;
  /**
   * Duration of the root node in whole milliseconds, when it has run. Rounded because stats are
   * printed as they are (`JSON.stringify(getStats())`); the node's own `duration` keeps the
   * timer's full precision.
   */
  duration?: number;
}

export function computeStats(root: WorkflowNode): TreeStats {
  const stats: TreeStats = {
    nodes: 0,
    byKind: {},
    byStatus: { idle: 0, running: 0, completed: 0, failed: 0, cancelled: 0, suspended: 0 },
    events: 0,
    logs: 0,
    dropped: { events: 0, logs: 0, children: 0 },
    maxDepth: 0,
    usage: { ...ZERO_USAGE },
  };
  const depth = new Map<WorkflowNode, number>([[root, 0]]);
  for (const node of walkTree(root)) {
    const d = node === root ? 0 : (depth.get(node.parent as WorkflowNode) ?? 0) + 1;
    depth.set(node, d);
    stats.maxDepth = Math.max(stats.maxDepth, d);
    stats.nodes += 1;
    stats.byKind[node.kind] = (stats.byKind[node.kind] ?? 0) + 1;
    stats.byStatus[node.status] += 1;
    stats.events += node.events.length;
    stats.logs += node.logs.length;
    stats.dropped.events += node.dropped.events;
    stats.dropped.logs += node.dropped.logs;
    stats.dropped.children += node.dropped.children;
    if (node.usage !== null) stats.usage = addUsage(stats.usage, node.usage);
    if (node.dropped.usage !== undefined) stats.usage = addUsage(stats.usage, node.dropped.usage);
  }
  if (root.duration !== undefined) stats.duration = Math.round(root.duration);
  return stats;
}
