import type { Usage as ApiUsage } from '@anthropic-ai/sdk/resources/messages/messages';
import type { TokenUsage } from '../types/usage.js';

/** US dollars per million tokens for one model. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  /** Defaults to 1.25 x input, the API's 5-minute cache write rate. */
  cacheWritePerMTok?: number;
  /** Defaults to 0.1 x input. */
  cacheReadPerMTok?: number;
}

/** Prices by model id. Costs are computed only for models listed here. */
export type Pricing = Readonly<Record<string, ModelPrice>>;

export function usageFromApi(usage: Partial<ApiUsage> | null | undefined): TokenUsage {
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheCreationInputTokens: usage?.cache_creation_input_tokens ?? 0,
    cacheReadInputTokens: usage?.cache_read_input_tokens ?? 0,
  };
}

/** The usage with its cost attached, when `pricing` knows the model. */
export function priced(usage: TokenUsage, model: string, pricing: Pricing | undefined): TokenUsage {
  const price = pricing?.[model];
  if (price === undefined) return usage;
  const dollars = (tokens: number, perMTok: number): number => (tokens * perMTok) / 1_000_000;
  const costUsd =
    dollars(usage.inputTokens, price.inputPerMTok) +
    dollars(usage.outputTokens, price.outputPerMTok) +
    dollars(usage.cacheCreationInputTokens, price.cacheWritePerMTok ?? price.inputPerMTok * 1.25) +
    dollars(usage.cacheReadInputTokens, price.cacheReadPerMTok ?? price.inputPerMTok * 0.1);
  return { ...usage, costUsd };
}
