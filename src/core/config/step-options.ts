import { UsageError } from '../../errors/groundswell-error.js';
import { assertConfig } from '../../checks/assert-config.js';
import { flag, func, integer, nonEmptyText } from '../../checks/fields.js';
import { memberLabel } from '../../checks/label.js';
import { expected } from '../../checks/leaf.js';
import { strict } from '../../checks/object.js';
import { received } from '../../checks/received.js';
import { budgetSchema } from '../../budgets/budget.schema.js';

/** Node's timers hold a signed 32-bit delay; a longer one fires at once (with a warning), not later. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const retrySchema = strict(
  {
    maxAttempts: integer(1),
    backoffMs: expected(
      `a number of milliseconds from 0 to ${MAX_TIMER_MS} (longer timers overflow), or a function of the attempt`,
      (v) => typeof v === 'function' || (typeof v === 'number' && v >= 0 && v <= MAX_TIMER_MS),
    ).optional(),
    retryOn: func.optional(),
  },
  'an object like { maxAttempts: 3, backoffMs: 100 }',
);

const sharedShape = {
  snapshotState: flag.optional(),
  trackTiming: flag.optional(),
  logStart: flag.optional(),
  logFinish: flag.optional(),
  retry: retrySchema.optional(),
  budget: budgetSchema.optional(),
  recorded: flag.optional(),
};

const decoratorOptionsSchema = strict({ name: nonEmptyText.optional(), ...sharedShape }, 'an object of step options');
// ctx.step takes its name as the first argument, so a `name` here would be ignored: refused.
const contextOptionsSchema = strict(sharedShape, 'an object of step options');

/** `@Step(options)` (once, at decoration) and `ctx.step(name, fn, options)`. */
export function validateStepOptions(options: unknown, kind: '@Step' | 'ctx.step', name: unknown): void {
  const schema = kind === '@Step' ? decoratorOptionsSchema : contextOptionsSchema;
  assertConfig(schema, options, () => memberLabel(kind, name), 'options');
}

/**
 * What a `backoffMs` function returned, checked when it is called (it cannot be at creation): a
 * negative, non-finite or overflowing delay would retry at once instead of after the wait.
 */
export function checkedBackoff(delayMs: unknown, attempt: number): number {
  if (typeof delayMs === 'number' && delayMs >= 0 && delayMs <= MAX_TIMER_MS) return delayMs;
  throw new UsageError(
    `retry.backoffMs(${attempt}) must return a number of milliseconds from 0 to ${MAX_TIMER_MS}, got ${received(delayMs)}.`,
  );
}
