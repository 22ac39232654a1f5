import { formatAmount } from '../budgets/budget-amounts.js';
import { meteredStandingParts } from '../budgets/standing-text.js';
import { budgetStandings } from '../budgets/node-budgets.js';
import type { WorkflowNode } from '../types/node.js';
import type { SerializedBudget } from '../types/serialized.js';
import { LoadedNode } from './loaded-node.js';

/**
 * The budgets set on `node` as they stand: read from its ledgers now on a live node, as exported
 * on a loaded one. A node without a budget costs one map lookup.
 */
export function budgetsOf(node: WorkflowNode): readonly SerializedBudget[] {
  if (node instanceof LoadedNode) return node.budgets;
  // A live node keeps its features' values under keys, which the `WorkflowNode` view does not list.
  return budgetStandings(node);
}

/**
 * `budget (workflow "x"): usd $0.0400 spent + $0.0100 reserved of $0.1000 · modelRequests 3 spent
 * + 1 reserved of 10`: a part per limit the budget sets. wallMs shows the node's time when it is
 * known (`elapsedMs`), else its limit alone.
 */
export function budgetStandingText(budget: SerializedBudget, elapsedMs?: number): string {
  const parts = meteredStandingParts(budget);
  const wallMs = budget.limits.wallMs;
  if (wallMs !== undefined) {
    parts.push(elapsedMs === undefined ? `wallMs limit ${formatAmount('wallMs', wallMs)}` : `wallMs ${formatAmount('wallMs', elapsedMs)} of ${formatAmount('wallMs', wallMs)}`);
  }
  return `budget (${budget.owner}): ${parts.join(' · ')}`;
}
