import { assertConfig } from '../../checks/assert-config.js';
import { integer, oneOf } from '../../checks/fields.js';
import { strict } from '../../checks/object.js';

/** At most this many at once: 0, negative, fractional, NaN and Infinity are refused (omit it for no limit). */
export const concurrencyField = integer(1);
export const settleField = oneOf(['throw', 'all'] as const);

const fanOutOptionsSchema = strict(
  { concurrency: concurrencyField.optional(), settle: settleField.optional() },
  'an object like { concurrency: 4, settle: "all" }',
);

/** The options of `ctx.spawnAll` and `ctx.map`, when given. */
export function validateFanOutOptions(options: unknown, kind: 'ctx.spawnAll' | 'ctx.map'): void {
  assertConfig(fanOutOptionsSchema, options, kind, 'options');
}
