import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { NO_AMOUNTS, type BudgetAmounts } from '../budgets/budget-amounts.js';
import { BudgetExceededError } from '../budgets/budget-exceeded-error.js';
import { jsonLength } from '../budgets/json-length.js';
import { firstAnswerWait, inputRatiosOf, noteSent } from '../budgets/input-learning.js';
import { reserve, type Reservation } from '../budgets/reservation.js';
import { UsageError } from '../errors/groundswell-error.js';
import { priceKeyOf } from './price-key.js';
import type { PromptCall } from './prompt-call.js';

const ONE_REQUEST: BudgetAmounts = Object.freeze({ ...NO_AMOUNTS, modelRequests: 1 });
const ONE_TOOL_CALL: BudgetAmounts = Object.freeze({ ...NO_AMOUNTS, toolCalls: 1 });

/**
 * Reserves one request's worst case on every budget enclosing the call, before it is sent:
 * the estimated input tokens plus `max_tokens` of output, priced at the model's highest input
 * rate (a cache write costs more than plain input), and one model request. Under a `usd` or
 * `tokens` limit the input is the length / 4 estimate times the largest ratio of reported to
 * estimated input the model's answers showed under these budgets, and a model with no answer yet
 * gets one request at a time. Throws `BudgetExceededError` when a limit could be passed, or
 * `BudgetWait` when the request may wait (see `reserveOrRaise`); undefined when no budget
 * encloses the call.
 */
export function reserveRequest<T>(call: PromptCall<T>, params: MessageCreateParamsNonStreaming, provider: string): Reservation | undefined {
  const ledgers = call.budgets;
  if (ledgers.length === 0) return undefined;
  const estimated = estimateInputTokens(params);
  const priced = ledgers.some((ledger) => ledger.limit('usd') !== undefined);
  // Only dollars and tokens count input: only budgets with those learn it.
  const model = priced || ledgers.some((ledger) => ledger.limit('tokens') !== undefined) ? inputRatiosOf(ledgers).of(provider, params.model) : undefined;
  const input = model?.ratio === undefined ? estimated : Math.ceil(estimated * model.ratio);
  const output = params.max_tokens;
  const usd = priced ? worstCaseUsd(call, provider, params.model, input, output) : 0;
  const need: BudgetAmounts = { usd, tokens: input + output, modelRequests: 1, toolCalls: 0 };
  const what = `Model request of agent "${call.agentName}"`;
  // Until the model's first answer says how dense its input runs, one request to it at a time.
  if (model?.firstInFlight === true) throw firstAnswerWait(ledgers, model, need, what);
  // A request may wait for requests in flight to settle (see `reserve`); a tool call never waits.
  const held = reserve(ledgers, need, what, true);
  if (model !== undefined) noteSent(held, model, estimated);
  return held;
}

/**
 * Input tokens of a request, estimated from its serialized length: 4 characters a token, rounded
 * up. The JSON's quotes, keys and tool schemas count too, which keeps the estimate above what the
 * model's tokenizer counts for ordinary text; images and unusual scripts can still beat it. The
 * conversation is new every request; the rest (schemas, tools, system) is measured once.
 */
function estimateInputTokens(params: MessageCreateParamsNonStreaming): number {
  let length = 2;
  for (const key in params) {
    const value = (params as unknown as Record<string, unknown>)[key];
    if (value !== undefined) length += key.length + 4 + jsonLength(value, key !== 'messages');
  }
  return Math.ceil(length / 4);
}


/**
 * A request that failed was sent (it counts as one) but answered nothing billable. When a
 * budget's wallMs stopped it, the call fails with that budget's error, the abort as its cause.
 */
export function failedRequest(held: Reservation | undefined, error: unknown, agentName: string): unknown {
  if (held === undefined) return error;
  held.settle(ONE_REQUEST);
  const expired = held.expired;
  if (expired === undefined) return error;
  return new BudgetExceededError(`Model request of agent "${agentName}" was stopped: ${expired.message}`, expired, { cause: error });
}

/** Reserves one tool call on every budget enclosing the call; throws when a limit could be passed. */
export function reserveToolCall<T>(call: PromptCall<T>, toolName: string): Reservation | undefined {
  if (call.budgets.length === 0) return undefined;
  return reserve(call.budgets, ONE_TOOL_CALL, `Tool call "${toolName}" of agent "${call.agentName}"`);
}

/** Settles a tool call's reservation: it counts when the tool ran (not when refused or unknown). */
export function settleToolCall(held: Reservation | undefined, ran: boolean): void {
  held?.settle(ran ? ONE_TOOL_CALL : NO_AMOUNTS);
}

function worstCaseUsd<T>(call: PromptCall<T>, provider: string, model: string, input: number, output: number): number {
  const key = priceKeyOf(call.pricing, provider, model, model);
  const price = call.pricing?.[key];
  if (price === undefined) {
    const where = call.budgets.find((ledger) => ledger.limit('usd') !== undefined);
    throw new UsageError(
      `Agent "${call.agentName}": the usd budget of ${where?.owner ?? 'an enclosing node'} (${where?.path ?? ''}) needs a price for model "${key}", ` +
        `and the agent's pricing has none: add it to createAgent({ pricing }).`,
    );
  }
  const inputRate = Math.max(price.inputPerMTok, price.cacheWritePerMTok ?? price.inputPerMTok * 1.25, price.cacheReadPerMTok ?? 0);
  return (input * inputRate + output * price.outputPerMTok) / 1_000_000;
}
