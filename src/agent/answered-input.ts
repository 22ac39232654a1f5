import type { Message } from '@anthropic-ai/sdk/resources/messages/messages';
import { learnInput } from '../budgets/input-learning.js';
import type { Reservation } from '../budgets/reservation.js';

/**
 * Tells the request's budgets what input its answer reported (plain, cache writes and reads), so
 * later requests to the model reserve by the ratio it showed. Before the reservation settles: the
 * request waiting for the model's first answer reserves with it. An answer without a count of
 * input teaches nothing.
 */
export function learnAnsweredInput(held: Reservation | undefined, response: Message): void {
  if (held?.estimate === undefined) return;
  const usage = response.usage as unknown as Partial<Record<string, unknown>> | null | undefined;
  const input = usage?.input_tokens;
  if (typeof input !== 'number') return;
  learnInput(held, input + countOf(usage?.cache_creation_input_tokens) + countOf(usage?.cache_read_input_tokens));
}

function countOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}
