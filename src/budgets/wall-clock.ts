import type { Clock } from '../util/clock.js';
import type { BudgetExceededError } from './budget-exceeded-error.js';
import type { BudgetLedger } from './budget-ledger.js';

const NOTHING_TO_STOP = (): void => undefined;

/**
 * Starts the ledger's wallMs on `clock` (the workflow's, so a test's fake clock drives it): when
 * it runs out the ledger expires and `onExpire` cancels the subtree. The returned function stops
 * the timer; call it when the budgeted node ends, so no timer outlives its subtree.
 */
export function armWallClock(ledger: BudgetLedger, clock: Clock, onExpire: (error: BudgetExceededError) => void): () => void {
  const wallMs = ledger.budget.wallMs;
  if (wallMs === undefined) return NOTHING_TO_STOP;
  const stop = new AbortController();
  const startedAt = clock.now();
  clock.sleep(wallMs, stop.signal).then(
    () => {
      if (!stop.signal.aborted) onExpire(ledger.expire(clock.now() - startedAt));
    },
    // Stopped because the node ended first: nothing ran out.
    () => undefined,
  );
  return () => stop.abort();
}
