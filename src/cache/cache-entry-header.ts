import { createHash } from 'node:crypto';
import type { CacheKeyPart } from '../types/cache.js';
import { isRecord } from '../util/is-record.js';
import { truncate } from '../util/truncate.js';
import { CACHE_KEY_PARTS, type CacheKeyPartHashes } from './cache-key-parts.js';
import { isFiniteNonNegative } from './response-shape.js';

/**
 * What an entry says about itself, readable by a person browsing a store: who asked, with which
 * model, and a fingerprint per key part. Hashes only: no prompt text, no data values, so a header
 * cannot leak a secret the request held. (A low-entropy secret could be guessed from a fingerprint
 * of its part, as it could from the key itself.)
 */
export interface CacheEntryHeader {
  /** The agent's name (the key's namespace). */
  readonly agent: string;
  /** The prompt's name, with the call's secret values masked. */
  readonly prompt: string;
  /** `cacheIdentity(agent, prompt name)`: entries of the same agent and prompt share it. */
  readonly identity: string;
  /** The model asked. */
  readonly model: string;
  /**
   * The first 16 hex digits of each part's SHA-256: enough to tell which part changed; the key,
   * not these, decides a hit. A header from another version may lack a part.
   */
  readonly parts: Readonly<Partial<Record<CacheKeyPart, string>>>;
  /** Parts left out of the key (`enableCache: { ignore }`), in part order. */
  readonly ignored: readonly CacheKeyPart[];
  /** Epoch ms when the entry was made. */
  readonly createdAt: number;
}

/** Fingerprint length kept in headers. */
const PART_FINGERPRINT_LENGTH = 16;

/** Names, prompt names and model ids longer than this are cut in a header (it stays small and readable). */
const MAX_HEADER_TEXT = 200;

const IDENTITY = /^[0-9a-f]{64}$/;
const FINGERPRINT = /^[0-9a-f]{16}$/;
const KNOWN_PARTS: ReadonlySet<string> = new Set(CACHE_KEY_PARTS);

/** SHA-256 (hex) of an agent name and a prompt name: the secondary index of entries. */
export function cacheIdentity(agentName: string, promptName: string): string {
  return createHash('sha256').update(JSON.stringify([agentName, promptName])).digest('hex');
}

/** A header for an entry being stored; texts cut to {@link MAX_HEADER_TEXT}, hashes cut to fingerprints. */
export function entryHeader(fields: {
  agent: string;
  prompt: string;
  identity: string;
  model: string;
  parts: CacheKeyPartHashes;
  ignored: ReadonlySet<CacheKeyPart>;
  createdAt: number;
}): CacheEntryHeader {
  const parts: Partial<Record<CacheKeyPart, string>> = {};
  for (const part of CACHE_KEY_PARTS) parts[part] = fields.parts[part].slice(0, PART_FINGERPRINT_LENGTH);
  return {
    agent: cut(fields.agent),
    prompt: cut(fields.prompt),
    identity: fields.identity,
    model: cut(fields.model),
    parts,
    ignored: CACHE_KEY_PARTS.filter((part) => fields.ignored.has(part)),
    createdAt: fields.createdAt,
  };
}

/**
 * What is wrong with a header, or undefined when it is one. The same check refuses a bad header on
 * `set` (a UsageError naming the field) and makes a damaged one a miss on read. Unknown fields and
 * unknown part names in `parts` are tolerated (a newer version may add some); known ones must fit.
 */
export function headerProblem(data: unknown): string | undefined {
  if (!isRecord(data)) return 'the header is not an object';
  for (const field of ['agent', 'prompt', 'model'] as const) {
    const value = data[field];
    if (typeof value !== 'string' || value.length > MAX_HEADER_TEXT) {
      return `\`header.${field}\` must be a string of at most ${MAX_HEADER_TEXT} characters`;
    }
  }
  if (typeof data.identity !== 'string' || !IDENTITY.test(data.identity)) return '`header.identity` must be 64 hex digits';
  if (!isRecord(data.parts)) return '`header.parts` must be an object';
  for (const part of CACHE_KEY_PARTS) {
    const value = data.parts[part];
    if (value !== undefined && (typeof value !== 'string' || !FINGERPRINT.test(value))) {
      return `\`header.parts.${part}\` must be 16 hex digits`;
    }
  }
  const ignored = data.ignored;
  if (!Array.isArray(ignored) || ignored.length > CACHE_KEY_PARTS.length || !ignored.every((part) => KNOWN_PARTS.has(part as string))) {
    return '`header.ignored` must be an array of key part names';
  }
  if (!isFiniteNonNegative(data.createdAt)) return '`header.createdAt` must be a finite, non-negative number (epoch ms)';
  return undefined;
}

/** A frozen plain copy of a header that passed {@link headerProblem}: only the known fields. */
export function copyHeader(header: CacheEntryHeader): CacheEntryHeader {
  const parts: Partial<Record<CacheKeyPart, string>> = {};
  for (const part of CACHE_KEY_PARTS) {
    const value = header.parts[part];
    if (value !== undefined) parts[part] = value;
  }
  return Object.freeze({
    agent: header.agent,
    prompt: header.prompt,
    identity: header.identity,
    model: header.model,
    parts: Object.freeze(parts),
    ignored: Object.freeze([...header.ignored]),
    createdAt: header.createdAt,
  });
}

/**
 * The parts in which a key (its full part hashes and ignore list) differs from a stored entry's
 * header, in part order. A part ignored by both never differs (it did not count); a part counted
 * by one and ignored by the other does. A part the header lacks cannot be compared and is left out.
 */
export function differingParts(
  parts: CacheKeyPartHashes,
  ignored: ReadonlySet<CacheKeyPart>,
  stored: CacheEntryHeader,
): CacheKeyPart[] {
  const storedIgnored = new Set(stored.ignored);
  return CACHE_KEY_PARTS.filter((part) => {
    const here = ignored.has(part);
    if (here !== storedIgnored.has(part)) return true;
    if (here) return false;
    const fingerprint = stored.parts[part];
    return fingerprint !== undefined && parts[part].slice(0, PART_FINGERPRINT_LENGTH) !== fingerprint;
  });
}

function cut(text: string): string {
  return truncate(text, MAX_HEADER_TEXT, () => '...');
}
