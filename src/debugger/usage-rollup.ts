import type { WorkflowNode } from '../types/node.js';
import type { TokenUsage } from '../types/usage.js';
import { walkTree } from '../util/tree-walk.js';
import { addUsage, ZERO_USAGE } from '../util/usage.js';

/**
 * Token usage (and cost) of every node's whole subtree, computed in one pass from the usage each
 * node spent itself. Nodes whose subtree spent nothing are absent.
 */
export function usageRollup(root: WorkflowNode): Map<WorkflowNode, TokenUsage> {
  const order = [...walkTree(root)];
  const totals = new Map<WorkflowNode, TokenUsage>();
  // Children come after their parents in walk order, so a reverse pass sees children first.
  for (let i = order.length - 1; i >= 0; i -= 1) {
    const node = order[i] as WorkflowNode;
    let total: TokenUsage | undefined = node.usage ?? undefined;
    const pruned = node.dropped.usage;
    if (pruned !== undefined) total = addUsage(total ?? ZERO_USAGE, pruned);
    for (const child of node.children) {
      const sub = totals.get(child);
      if (sub !== undefined) total = addUsage(total ?? ZERO_USAGE, sub);
    }
    if (total !== undefined) totals.set(node, total);
  }
  return totals;
}

/**
 * The same totals keyed by node id: ids are unique in a tree, so siblings sharing a name (six
 * `classify` steps) stay apart, and the keys survive export and reload, unlike node objects.
 */
export function usageById(root: WorkflowNode): Map<string, TokenUsage> {
  const byId = new Map<string, TokenUsage>();
  for (const [node, usage] of usageRollup(root)) byId.set(node.id, usage);
  return byId;
}
