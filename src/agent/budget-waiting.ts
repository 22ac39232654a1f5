import { BudgetExceededError } from '../budgets/budget-exceeded-error.js';
import { BudgetWait } from '../budgets/budget-wait.js';
import { nextTicket, type Waiter, type WaiterStep } from '../budgets/wait-queue.js';
import type { BudgetStanding } from '../types/budget.js';
import type { BudgetWaitingEvent } from '../types/events.js';
import type { PromptCall } from './prompt-call.js';

/**
 * Waits in the queue `wait` names until `attempt` (the request's reservation, tried again each
 * time the queue is woken) reserves, and resolves with that; rejects with what it throws when it
 * is refused or fails, or with the signal's reason when the call is cancelled or a budget's time
 * runs out first (nothing was sent). `budgetWaiting` on the call's node says when the wait starts
 * and how it ends.
 */
export function waitForBudget<T, R>(call: PromptCall<T>, wait: BudgetWait, attempt: () => R): Promise<R> {
  return new Promise<R>((resolve, reject) => {
    const signal = call.tree.signal;
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    const { reason } = wait;
    let queue = wait.queue;
    // The standing as last seen, for the end event: the refusal's when refused.
    let standing: BudgetStanding = wait.standing;
    const end = (outcome: NonNullable<BudgetWaitingEvent['outcome']>): void => {
      signal?.removeEventListener('abort', onAbort);
      call.tree.emit({ type: 'budgetWaiting', phase: 'end', reason, outcome, ...standingOf(standing) });
    };
    const waiter: Waiter = {
      ticket: nextTicket(),
      retry(): WaiterStep {
        let reserved: R;
        try {
          reserved = attempt();
        } catch (error) {
          if (error instanceof BudgetWait) {
            standing = error.standing;
            if (error.queue === queue) return 'stay';
            queue = error.queue;
            return queue;
          }
          if (error instanceof BudgetExceededError) standing = error;
          end('refused');
          reject(error);
          return 'done';
        }
        end('sent');
        resolve(reserved);
        return 'done';
      },
    };
    const onAbort = (): void => {
      queue.remove(waiter);
      end('cancelled');
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    call.tree.emit({ type: 'budgetWaiting', phase: 'start', reason, ...standingOf(standing) });
    queue.add(waiter);
  });
}

/** The standing's own fields (an error carries more). */
function standingOf(standing: BudgetStanding): BudgetStanding {
  const { budgetNodeId, budgetPath, dimension, limit, spent, reserved, needed } = standing;
  return { budgetNodeId, budgetPath, dimension, limit, spent, reserved, needed };
}
