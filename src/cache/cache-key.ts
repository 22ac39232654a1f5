import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { canonicalJson } from './canonical-json.js';
import { schemaHash } from './schema-hash.js';

/**
 * Everything that shapes the answer to one prompt, as it would be sent: prompt-level overrides
 * already applied, so an agent default that was overridden does not split the cache.
 */
export interface CacheKeyInput {
  user: string;
  data: unknown;
  system: string | undefined;
  model: string;
  sampling: { maxTokens: number; temperature?: number; stop?: readonly string[] };
  /** In the order they are offered to the model. */
  tools: ReadonlyArray<{ name: string; description?: string; inputSchema: unknown }>;
  mcps: ReadonlyArray<{ name: string; identity: unknown }>;
  skills: ReadonlyArray<{ name: string; description?: string; content: string }>;
  responseSchema: z.core.$ZodType;
}

/**
 * `${namespace}:${sha256 hex}` over the canonical JSON of the whole input, with the response
 * schema replaced by its {@link schemaHash}. The whole input counts, not a picked list of
 * fields, so a field added to the request later cannot be silently left out of the key (an
 * unexpected extra property can only cause a miss, never a wrong hit).
 *
 * Throws a UsageError naming the path when the input holds something that is not JSON data.
 */
export function cacheKey(input: CacheKeyInput, namespace = 'gs'): string {
  const { data, ...rest } = input;
  const request = { ...rest, responseSchema: schemaHash(input.responseSchema) };
  const digest = createHash('sha256')
    .update(canonicalJson(request))
    .update('\n')
    .update(canonicalData(data))
    .digest('hex');
  return `${cacheKeyPrefix(namespace)}${digest}`;
}

// A prompt's data is deep-frozen, so its canonical text is computed once per data object.
// (Callers passing their own frozen objects must freeze them deeply too.)
const frozenData = new WeakMap<object, string>();

function canonicalData(data: unknown): string {
  if (typeof data !== 'object' || data === null || !Object.isFrozen(data)) return wrapped(data);
  let text = frozenData.get(data);
  if (text === undefined) {
    text = wrapped(data);
    frozenData.set(data, text);
  }
  return text;
}

/** Serialised under its field name, so an error names the path as `$.data...`. */
function wrapped(data: unknown): string {
  return canonicalJson({ data });
}

/**
 * The prefix every key of `namespace` starts with, for `cache.bustPrefix(cacheKeyPrefix('researcher'))`.
 * `:` and `%` in a namespace are percent-encoded, so namespace `a` never matches keys of `a:b`.
 */
export function cacheKeyPrefix(namespace: string): string {
  return `${namespace.replaceAll('%', '%25').replaceAll(':', '%3A')}:`;
}
