import { NO_AMOUNTS, type BudgetAmounts } from '../budgets/budget-amounts.js';
import { BudgetExceededError } from '../budgets/budget-exceeded-error.js';
import { reserve, type Reservation } from '../budgets/reservation.js';
import { reserveOrRaise } from './budget-suspend.js';
import { keepReservation } from './keep-reservation.js';
import type { BeforeRetry } from './model/model-adapter.js';
import type { PromptCall } from './prompt-call.js';

const ONE_REQUEST: BudgetAmounts = Object.freeze({ ...NO_AMOUNTS, modelRequests: 1 });

/**
 * The check an adapter makes before it sends a retry of a request under budgets: every retry is a
 * request sent, so it reserves one more `modelRequests` on every budget enclosing the call, booked
 * at once (it goes out next; a failed attempt used no tokens, and the first attempt's reservation
 * covers the one answer). A budget that refuses it fails the call with its `BudgetExceededError`,
 * whose cause is the failure that would have been retried; a suspending budget may wait for a
 * raise first.
 */
export function retryGate<T>(call: PromptCall<T>): BeforeRetry {
  return (attempt, failure) => {
    const what = `Attempt ${attempt} of a model request of agent "${call.agentName}"`;
    const reserving = reserveOrRaise(call, () => reserve(call.budgets, ONE_REQUEST, what));
    if (!(reserving instanceof Promise)) return sent(call, reserving);
    return reserving.then(
      (held) => sent(call, held),
      (refusal: unknown) => {
        throw refusal instanceof BudgetExceededError ? new BudgetExceededError(refusal.message, refusal, { cause: failure }) : refusal;
      },
    );
  };
}

/** Books the retry as sent; a durable run keeps it first, so a crash during the retry still counts it. */
function sent<T>(call: PromptCall<T>, held: Reservation | undefined): void | Promise<void> {
  if (held === undefined) return undefined;
  const kept = keepReservation(call, held);
  held.settle(ONE_REQUEST);
  return kept;
}
