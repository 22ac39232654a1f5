import { providerFamily } from './model/provider-family.js';
import type { Pricing } from './pricing.js';

/**
 * The name a request is priced under. The API may answer an alias with a dated id, so either name
 * prices it. A provider model's price may also be keyed `provider/model`, which wins, so one model
 * id served by two providers can cost differently: by the whole provider id or any part of it up
 * to a dot, the longest first (`corp.gateway.chat/m`, `corp.gateway/m`, then the family key
 * `corp/m` documented first). A model given by a `provider/model` name is priced under that name
 * first, as written. Unpriced, that name or the family key is the name a warning gives.
 */
export function priceKeyOf(pricing: Pricing | undefined, provider: string, answered: string, asked: string, named?: string): string {
  if (named !== undefined && (pricing === undefined || pricing[named] !== undefined || !hasKeyFor(pricing, provider, answered, asked))) return named;
  if (provider === 'anthropic') return pricing?.[answered] !== undefined ? answered : asked;
  // Without prices every key misses: the others are not even built (this runs per request).
  if (pricing === undefined) return `${providerFamily(provider)}/${asked}`;
  for (let prefix = provider; ; ) {
    for (const key of [`${prefix}/${answered}`, `${prefix}/${asked}`]) if (pricing[key] !== undefined) return key;
    const dot = prefix.lastIndexOf('.');
    if (dot <= 0) break;
    prefix = prefix.slice(0, dot);
  }
  for (const key of [answered, asked]) if (pricing[key] !== undefined) return key;
  return `${providerFamily(provider)}/${asked}`;
}

/** True when some key other than a `provider/model` name prices the request. */
function hasKeyFor(pricing: Pricing, provider: string, answered: string, asked: string): boolean {
  return pricing[priceKeyOf(pricing, provider, answered, asked)] !== undefined;
}
