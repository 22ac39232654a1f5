import { formatAmount, METERED } from './budget-amounts.js';
import type { SerializedBudget } from '../types/serialized.js';

/** `usd $0.0400 spent + $0.0100 reserved of $0.1000`: one part per metered limit the budget sets. */
export function meteredStandingParts(budget: SerializedBudget): string[] {
  const parts: string[] = [];
  for (const dimension of METERED) {
    const limit = budget.limits[dimension];
    if (limit === undefined) continue;
    const amount = (value: number): string => formatAmount(dimension, value);
    parts.push(`${dimension} ${amount(budget.spent[dimension])} spent + ${amount(budget.reserved[dimension])} reserved of ${amount(limit)}`);
  }
  return parts;
}
