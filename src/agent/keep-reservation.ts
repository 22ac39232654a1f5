import { NO_AMOUNTS } from '../budgets/budget-amounts.js';
import type { Reservation } from '../budgets/reservation.js';
import { reservationSink } from './call-journal.js';
import type { PromptCall } from './prompt-call.js';

/**
 * Stores what a request holds before it is sent, where the call's durable run keeps it; undefined
 * (nothing to wait for) outside a durable run. A store that fails leaves the request unsent.
 */
export function keepReservation<T>(call: PromptCall<T>, held: Reservation): Promise<void> | undefined {
  const sink = reservationSink(call);
  if (sink === undefined) return undefined;
  return sink(held.amounts).catch((error: unknown) => {
    // Not sent: nothing was used.
    held.settle(NO_AMOUNTS);
    throw error;
  });
}
