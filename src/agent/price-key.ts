import type { Pricing } from './pricing.js';

/**
 * The name a request is priced under. The API may answer an alias with a dated id, so either name
 * prices it; a provider model's price may also be keyed `provider/model` (`ollama/llama3.2`), which
 * wins, so one model id served by two providers can cost differently.
 */
export function priceKeyOf(pricing: Pricing | undefined, provider: string, answered: string, asked: string): string {
  if (provider === 'anthropic') return pricing?.[answered] !== undefined ? answered : asked;
  const askedKey = `${provider}/${asked}`;
  // Without prices every key misses: the first three are not even built (this runs per request).
  if (pricing === undefined) return askedKey;
  const answeredKey = `${provider}/${answered}`;
  for (const key of [answeredKey, askedKey, answered, asked]) if (pricing[key] !== undefined) return key;
  return askedKey;
}
