import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import type { BudgetAmounts } from '../budgets/budget-amounts.js';
import { amountsOfUsage } from '../budgets/earlier-spending.js';
import type { Reservation } from '../budgets/reservation.js';
import type { TokenUsage } from '../types/usage.js';
import { MalformedResponseError } from './agent-errors.js';
import { countOrZero, reportedUsage, usageProblem, type UsageProblem } from './checked-usage.js';
import { priced, usageFromApi, type Pricing } from './pricing.js';
import type { PromptCall } from './prompt-call.js';

/**
 * What one answered request used, as its call reports it and its budgets book it. Usage that can
 * be trusted is priced and settled on the reservation, as always. Otherwise, under a budget:
 * missing or malformed usage books the reservation (the request's worst case, which the call then
 * reports as its usage, so a replay books it again); output beyond `maxTokens` books what was
 * reported, and every budget with a tokens or usd limit refuses all later work (its reservations
 * no longer bound it). Each is a `budgetUsageUnreliable` event on the call's node. Without a
 * budget a figure that is not a count counts as 0.
 */
export function bookedUsage<T>(
  call: PromptCall<T>,
  held: Reservation | undefined,
  provider: string,
  request: MessageCreateParamsNonStreaming,
  response: Message,
  priceKey: string,
): TokenUsage {
  const problem = usageProblem(response.usage, request.max_tokens);
  if (problem === undefined || problem.reason === 'beyond-max-tokens') {
    const usage = priced(usageFromApi(response.usage), priceKey, call.pricing);
    const used = amountsOfUsage(usage);
    held?.settle(used);
    if (problem !== undefined && held !== undefined) stopBudgets(call, provider, request, response, problem, used);
    return usage;
  }
  if (held === undefined) return priced(countedUsage(response.usage), priceKey, call.pricing);
  const booked = held.amounts;
  held.settle(booked);
  report(call, provider, response.model, request, problem, booked, reportedUsage(response.usage));
  return worstCaseUsage(booked, request.max_tokens, priceKey, call.pricing);
}

/**
 * A request whose answer came but could not be read (`MalformedResponseError`): its usage cannot
 * be read either, and the provider may have billed it, so its budgets book its reservation.
 */
export function bookUnreadable<T>(call: PromptCall<T>, held: Reservation | undefined, provider: string, request: MessageCreateParamsNonStreaming, error: unknown): void {
  if (held === undefined || !(error instanceof MalformedResponseError)) return;
  const booked = held.amounts;
  held.settle(booked);
  report(call, provider, request.model, request, { reason: 'malformed', detail: error.problem }, booked, undefined);
}

/** Output beyond `maxTokens`: booked as reported, and the budgets it could pass take no more work. */
function stopBudgets<T>(
  call: PromptCall<T>,
  provider: string,
  request: MessageCreateParamsNonStreaming,
  response: Message,
  problem: UsageProblem,
  used: BudgetAmounts,
): void {
  report(call, provider, response.model, request, problem, used, reportedUsage(response.usage));
  const why = `the ${provider} model "${response.model}" answered ${problem.detail}, so reservations no longer bound what it spends`;
  for (const ledger of call.budgets) {
    const dimension = ledger.limit('tokens') !== undefined ? 'tokens' : ledger.limit('usd') !== undefined ? 'usd' : undefined;
    if (dimension !== undefined) ledger.stopTaking(dimension, why);
  }
}

function report<T>(
  call: PromptCall<T>,
  provider: string,
  model: string,
  request: MessageCreateParamsNonStreaming,
  problem: UsageProblem,
  booked: BudgetAmounts,
  reported: ReturnType<typeof reportedUsage> | undefined,
): void {
  call.tree.emit({
    type: 'budgetUsageUnreliable',
    agentName: call.agentName,
    reason: problem.reason,
    provider,
    model,
    maxTokens: request.max_tokens,
    ...(reported === undefined ? {} : { reported }),
    ...(problem.reason === 'beyond-max-tokens' ? { excess: problem.excess } : {}),
    booked: { usd: booked.usd, tokens: booked.tokens },
    detail: problem.detail,
  });
}

/** The reservation as the call's usage: `maxTokens` of output, the rest input, its dollars when it held some. */
function worstCaseUsage(booked: BudgetAmounts, maxTokens: number, priceKey: string, pricing: Pricing | undefined): TokenUsage {
  const outputTokens = Math.min(maxTokens, booked.tokens);
  const usage = priced({ inputTokens: booked.tokens - outputTokens, outputTokens, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 }, priceKey, pricing);
  return booked.usd > 0 ? { ...usage, costUsd: booked.usd } : usage;
}

function countedUsage(usage: unknown): TokenUsage {
  const u = (usage ?? {}) as Partial<Record<string, unknown>>;
  return {
    inputTokens: countOrZero(u.input_tokens),
    outputTokens: countOrZero(u.output_tokens),
    cacheCreationInputTokens: countOrZero(u.cache_creation_input_tokens),
    cacheReadInputTokens: countOrZero(u.cache_read_input_tokens),
  };
}
