import { BudgetExceededError } from 'groundswell';

/** The BudgetExceededError in `error`'s cause chain (a step wraps it in a WorkflowError), if any. */
export function budgetErrorIn(error: unknown): BudgetExceededError | undefined {
  for (let at: unknown = error, depth = 0; at !== undefined && at !== null && depth < 10; depth += 1) {
    if (at instanceof BudgetExceededError) return at;
    at = (at as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A small seeded generator (mulberry32), so a failing trial can be run again by its seed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** An integer in [min, max] from `random`. */
export function between(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}
