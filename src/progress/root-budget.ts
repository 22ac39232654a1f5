import { budgetStandings } from '../budgets/node-budgets.js';
import { meteredStandingParts } from '../budgets/standing-text.js';

/**
 * How the budgets set on the run's root stand, for the usage line: `budget usd $0.0400 spent +
 * $0.0100 reserved of $0.1000, modelRequests 3 spent + 1 reserved of 10`. Undefined without one.
 */
export function rootBudgetText(root: object): string | undefined {
  const parts = budgetStandings(root).flatMap(meteredStandingParts);
  return parts.length === 0 ? undefined : `budget ${parts.join(', ')}`;
}
