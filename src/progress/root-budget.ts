import { formatAmount, METERED } from '../budgets/budget-amounts.js';
import { budgetStandings } from '../budgets/node-budgets.js';

/**
 * How the budgets set on the run's root stand, for the usage line: `budget usd $0.0400 spent +
 * $0.0100 reserved of $0.1000, modelRequests 3 spent + 1 reserved of 10`. Undefined without one.
 */
export function rootBudgetText(root: object): string | undefined {
  const parts: string[] = [];
  for (const budget of budgetStandings(root)) {
    for (const dimension of METERED) {
      const limit = budget.limits[dimension];
      if (limit === undefined) continue;
      const amount = (value: number): string => formatAmount(dimension, value);
      parts.push(`${dimension} ${amount(budget.spent[dimension])} spent + ${amount(budget.reserved[dimension])} reserved of ${amount(limit)}`);
    }
  }
  return parts.length === 0 ? undefined : `budget ${parts.join(', ')}`;
}
