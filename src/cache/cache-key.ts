import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { CacheKeyPart } from '../types/cache.js';
import { CACHE_KEY_PARTS, type CacheKeyPartHashes } from './cache-key-parts.js';
import { canonicalJson } from './canonical-json.js';
import { schemaHash } from './schema-hash.js';
import { sha256Hex } from './sha256-hex.js';

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
  /** The plan text the first request carries (an agent's `plan`); left out when there is none. */
  plan?: string;
}

/**
 * How the system text splits into its sections, for the per-part hashes only: the key covers the
 * whole `system` text, and these are a view of it (identity = system text and skills).
 */
export interface SystemSections {
  identity: string;
  ancestry: string;
  guidance: string;
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
  return cacheKeyOfRequest(requestText(input), input.data, namespace);
}

/**
 * The canonical JSON of the input without its `data`, the response schema as its hash: what the
 * key hashes before the data. A caller that knows nothing changed can reuse it (the agent does).
 */
export function requestText(input: CacheKeyInput): string {
  const { data, ...rest } = input;
  return canonicalJson({ ...rest, responseSchema: schemaHash(input.responseSchema) });
}

/** `cacheKey` from the input's {@link requestText} and its data. */
export function cacheKeyOfRequest(request: string, data: unknown, namespace = 'gs'): string {
  return `${cacheKeyPrefix(namespace)}${keyDigest(request, data)}`;
}

// A prompt's data is deep-frozen, so its canonical text is computed once per data object.
// (Callers passing their own frozen objects must freeze them deeply too.)
const frozenData = new WeakMap<object, string>();

/**
 * Digests of frozen data by the request text they were hashed with: asking the same prompt again
 * (every cache hit) then hashes nothing. Bounded per data object, and dropped with it.
 */
const digestsByData = new WeakMap<object, Map<string, string>>();
const DIGESTS_PER_DATA = 16;

/** SHA-256 hex of `request`, a newline and the canonical data: the digest part of a whole-input key. */
function keyDigest(request: string, data: unknown): string {
  if (typeof data !== 'object' || data === null || !Object.isFrozen(data)) return sha256Hex(`${request}\n${wrapped(data)}`);
  let digests = digestsByData.get(data);
  let hex = digests?.get(request);
  if (hex === undefined) {
    hex = sha256Hex(`${request}\n${canonicalData(data)}`);
    if (digests === undefined) digestsByData.set(data, (digests = new Map()));
    else if (digests.size >= DIGESTS_PER_DATA) digests.clear();
    digests.set(request, hex);
  }
  return hex;
}

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
 * A SHA-256 (hex) per part of the input (see `CacheKeyPart`), for entry headers and for telling
 * which part of a key changed. Any property of the input that no part names counts under
 * `settings`, so it still changes a hash. Without `sections` the whole system text is `system`.
 * Not on the hit path: a hit needs the key only.
 */
export function cacheKeyPartHashes(input: CacheKeyInput, sections?: SystemSections): CacheKeyPartHashes {
  const { user, data, system, model, sampling, tools, mcps, skills, responseSchema, plan, ...rest } = input;
  return {
    system: digest({ system: sections === undefined ? system : sections.identity, skills }),
    ancestry: digest(sections?.ancestry ?? ''),
    guidance: digest(sections?.guidance ?? ''),
    plan: digest(plan ?? ''),
    user: digest(user),
    data: dataDigest(data),
    // Already a SHA-256, memoised per schema object.
    schema: schemaHash(responseSchema),
    model: digest(model),
    tools: digest({ tools, mcps }),
    settings: digest({ sampling, ...rest }),
  };
}

/**
 * The key of an input with some parts left out (`enableCache: { ignore }`): a SHA-256 over the
 * part hashes in a fixed order, an ignored part marked as such. It never equals the whole-input
 * key of `cacheKey`, so answers stored with and without an ignore list are never mixed up.
 */
export function cacheKeyFromParts(parts: CacheKeyPartHashes, ignore: ReadonlySet<CacheKeyPart>, namespace = 'gs'): string {
  const hash = createHash('sha256').update('gs-parts/1\n');
  for (const part of CACHE_KEY_PARTS) hash.update(`${part}=${ignore.has(part) ? '-' : parts[part]}\n`);
  return `${cacheKeyPrefix(namespace)}${hash.digest('hex')}`;
}

function digest(value: unknown): string {
  return sha256Hex(canonicalJson({ value }));
}

const dataDigests = new WeakMap<object, string>();

/** Like the canonical text, the digest of deep-frozen data is computed once per data object. */
function dataDigest(data: unknown): string {
  const frozen = typeof data === 'object' && data !== null && Object.isFrozen(data);
  let hex = frozen ? dataDigests.get(data) : undefined;
  if (hex === undefined) {
    hex = sha256Hex(canonicalData(data));
    if (frozen) dataDigests.set(data, hex);
  }
  return hex;
}

const prefixes = new Map<string, string>();

/**
 * The prefix every key of `namespace` starts with, for `cache.bustPrefix(cacheKeyPrefix('researcher'))`.
 * `:` and `%` in a namespace are percent-encoded, so namespace `a` never matches keys of `a:b`.
 */
export function cacheKeyPrefix(namespace: string): string {
  let prefix = prefixes.get(namespace);
  if (prefix === undefined) {
    prefix = `${namespace.replaceAll('%', '%25').replaceAll(':', '%3A')}:`;
    // Namespaces are agent names, a handful per process; bounded all the same.
    if (prefixes.size >= 256) prefixes.clear();
    prefixes.set(namespace, prefix);
  }
  return prefix;
}
