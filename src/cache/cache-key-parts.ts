import type { CacheKeyPart } from '../types/cache.js';

/** Every part, in the fixed order the part-based key hashes them. */
export const CACHE_KEY_PARTS = [
  'system',
  'ancestry',
  'guidance',
  'plan',
  'user',
  'data',
  'schema',
  'model',
  'tools',
  'settings',
] as const satisfies readonly CacheKeyPart[];

/**
 * Parts `enableCache: { ignore }` may leave out of the key. `user` and `data` are the question
 * itself: leaving them out would answer different questions with one stored answer.
 */
export const IGNORABLE_CACHE_KEY_PARTS = [
  'system',
  'ancestry',
  'guidance',
  'plan',
  'schema',
  'model',
  'tools',
  'settings',
] as const satisfies readonly CacheKeyPart[];

export type IgnorableCacheKeyPart = (typeof IGNORABLE_CACHE_KEY_PARTS)[number];

/** One fingerprint per part: a hex string (16 characters in an entry header, 64 when computed). */
export type CacheKeyPartHashes = Readonly<Record<CacheKeyPart, string>>;

// Compile-time check that the list names every part: a part added to the type must be hashed.
type Missing = Exclude<CacheKeyPart, (typeof CACHE_KEY_PARTS)[number]>;
const everyPartListed: [Missing] extends [never] ? true : Missing = true;
void everyPartListed;
