import { BudgetExceededError } from 'groundswell';

/** The BudgetExceededError in `error`'s cause chain (a step wraps it in a WorkflowError), if any. */
export function budgetErrorIn(error: unknown): BudgetExceededError | undefined {
  for (let at: unknown = error, depth = 0; at !== undefined && at !== null && depth < 10; depth += 1) {
    if (at instanceof BudgetExceededError) return at;
    at = (at as { cause?: unknown }).cause;
  }
  return undefined;
}

/** An integer in [min, max] from `random`. */
export function between(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}
