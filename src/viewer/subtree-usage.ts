import type { WorkflowNode } from '../types/node.js';
import type { TokenUsage } from '../types/usage.js';
import { addUsage, ZERO_USAGE } from '../util/usage.js';

/** What a node adds to its subtree's total itself: its own usage plus what its pruned children spent. */
export function ownUsage(node: WorkflowNode, dropped: WorkflowNode['dropped'] = node.dropped): TokenUsage | undefined {
  return ownPart(node.usage, dropped);
}

/** `ownUsage` from the node's usage and dropped counts as the caller read them (a live node computes each on every read). */
export function ownPart(usage: TokenUsage | null, dropped: WorkflowNode['dropped']): TokenUsage | undefined {
  const own = usage ?? undefined;
  const pruned = dropped.usage;
  if (pruned === undefined) return own;
  return addUsage(own ?? ZERO_USAGE, pruned);
}

/** `usageRollup` semantics for one node, from its own part and its children's totals; undefined when nothing was spent. */
export function subtreeUsage(own: TokenUsage | undefined, children: Iterable<TokenUsage>): TokenUsage | undefined {
  let total = own;
  for (const sub of children) total = addUsage(total ?? ZERO_USAGE, sub);
  return total;
}
