import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { amountsOfUsage } from '../budgets/earlier-spending.js';
import type { Reservation } from '../budgets/reservation.js';
import { addUsage } from '../util/usage.js';
import { failedRequest, reserveRequest } from './budget-gate.js';
import { reserveOrRaise } from './budget-suspend.js';
import { priceKeyOf } from './price-key.js';
import { priced, usageFromApi } from './pricing.js';
import type { PromptCall } from './prompt-call.js';

/** Sends one request as is and resolves to the model's answer. */
export type RequestSender = (request: MessageCreateParamsNonStreaming) => Promise<Message>;

/**
 * One model request a feature of the call sends on its own (a grounding pass), held to the same
 * rule as the loop's: reserved on every budget enclosing the call before it is sent (a refusal
 * throws and nothing goes out), booked at its reported usage when it answers, and metered on the
 * call so its node's usage and the budgets agree. `provider` is the one `send` reaches.
 */
export async function budgetedRequest<T>(
  call: PromptCall<T>,
  request: MessageCreateParamsNonStreaming,
  provider: string,
  send: RequestSender,
): Promise<Message> {
  const reserving = call.budgets.length === 0 ? undefined : reserveOrRaise(call, () => reserveRequest(call, request, provider));
  const held = reserving instanceof Promise ? await reserving : reserving;
  let response: Message;
  try {
    response = await send(request);
  } catch (error) {
    throw failedRequest(held, error, call.agentName);
  }
  settleRequest(call, held, provider, request, response);
  return response;
}

/**
 * What an answer costs, as the loop books it: the reported usage priced under the request's
 * price key, settled on the reservation and added to the call's meter. The one place a feature's
 * answer is booked, so a check of the reported usage belongs here.
 */
function settleRequest<T>(
  call: PromptCall<T>,
  held: Reservation | undefined,
  provider: string,
  request: MessageCreateParamsNonStreaming,
  response: Message,
): void {
  const key = priceKeyOf(call.pricing, provider, response.model, request.model);
  if (call.pricing !== undefined && call.pricing[key] === undefined) call.missingPrice.note(call.tree, call.agentName, key);
  const usage = priced(usageFromApi(response.usage), key, call.pricing);
  held?.settle(amountsOfUsage(usage));
  call.meter.usage = addUsage(call.meter.usage, usage);
}
