import type { Reservation } from '../budgets/reservation.js';
import { reservationSink } from './call-journal.js';
import type { PromptCall } from './prompt-call.js';

/**
 * Stores what a request holds before it is sent, where the call's durable run keeps it; a call
 * outside a durable run resolves at once. A store that fails leaves the request unsent.
 */
export async function keepReservation<T>(call: PromptCall<T>, held: Reservation): Promise<void> {
  const sink = reservationSink(call);
  if (sink === undefined) return;
  try {
    await sink(held.amounts);
  } catch (error) {
    // Not sent: nothing was used.
    held.settle({ usd: 0, tokens: 0, modelRequests: 0, toolCalls: 0 });
    throw error;
  }
}
