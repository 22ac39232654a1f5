import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import type { Reservation } from '../budgets/reservation.js';
import { addUsage } from '../util/usage.js';
import { failedRequest, reserveRequest } from './budget-gate.js';
import { reserveOrRaise } from './budget-suspend.js';
import { priceKeyOf } from './price-key.js';
import { bookedUsage, bookUnreadable } from './booked-usage.js';
import { learnAnsweredInput } from './answered-input.js';
import { keepReservation } from './keep-reservation.js';
import { retryGate } from './retry-gate.js';
import type { PromptCall } from './prompt-call.js';

/**
 * One model request a feature of the call sends on its own (a grounding pass) to the call's
 * model, held to the same rules as the loop's: reserved on every budget enclosing the call before
 * it is sent (a refusal throws and nothing goes out) and kept by a durable run, each retry
 * reserved before it is sent, booked at its checked usage when it answers, and metered on the
 * call so its node's usage and the budgets agree.
 */
export async function budgetedRequest<T>(call: PromptCall<T>, request: MessageCreateParamsNonStreaming): Promise<Message> {
  const model = call.model;
  const provider = model.provider;
  const reserving = call.budgets.length === 0 ? undefined : reserveOrRaise(call, () => reserveRequest(call, request, provider));
  const held = reserving instanceof Promise ? await reserving : reserving;
  if (held !== undefined) await keepReservation(call, held);
  const beforeRetry = call.budgets.length === 0 ? undefined : retryGate(call);
  let response: Message;
  try {
    response = await model.send(request, { agentName: call.agentName, tree: call.tree, onText: undefined, beforeRetry });
  } catch (error) {
    bookUnreadable(call, held, provider, request, error);
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
  // A feature's request to the call's own model is priced under the name the call gave it.
  const named = provider === call.model.provider && request.model === call.settings.model ? call.settings.modelName : undefined;
  const key = priceKeyOf(call.pricing, provider, response.model, request.model, named);
  if (call.pricing !== undefined && call.pricing[key] === undefined) call.missingPrice.note(call.tree, call.agentName, key);
  // Its input teaches the budgets as the loop's answers do (it may be the model's first request).
  learnAnsweredInput(held, response);
  const usage = bookedUsage(call, held, provider, request, response, key);
  call.meter.usage = addUsage(call.meter.usage, usage);
}
