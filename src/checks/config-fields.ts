import { expected } from './leaf.js';
import type { Check } from './check.js';
import type { ZodType } from 'zod';
import { hasMethods } from './fields.js';

/*
 * Building blocks of the config checks (src/checks): the shared leaves, plus what only the
 * agent-side configs need.
 */

export {
  flag,
  func,
  hasMethods,
  integer,
  isObject,
  nonEmptyText,
  numberIn,
  oneOf,
  stringArray,
  stringRecord,
  text,
} from './fields.js';
export { expected } from './leaf.js';
export { strict } from './object.js';

// Duck-typed, so checking a schema never loads zod. A zod 3 schema has `safeParse` but no `_zod`:
// the expectation names the version so the fix is plain.
export const zodSchema: Check<ZodType> = expected<ZodType>(
  'a zod 4 schema (e.g. z.object({...}) from zod@^4; zod 3 schemas are not supported)',
  (v) => hasMethods(v, 'safeParse') && '_zod' in (v as object),
);
