import { UsageError } from '../../errors/groundswell-error.js';
import { assertConfig } from '../../checks/assert-config.js';
import { flag, nonEmptyText } from '../../checks/fields.js';
import { memberLabel } from '../../checks/label.js';
import { strict } from '../../checks/object.js';
import { budgetSchema } from '../../budgets/budget.schema.js';
import { errorMergeSchema } from './error-merge.js';
import { concurrencyField, settleField } from './fan-out-options.js';

const taskOptionsSchema = strict(
  {
    name: nonEmptyText.optional(),
    concurrent: flag.optional(),
    concurrency: concurrencyField.optional(),
    settle: settleField.optional(),
    errorMergeStrategy: errorMergeSchema.optional(),
    budget: budgetSchema.optional(),
  },
  'an object of task options',
);

/** `@Task(options)`, once at decoration. */
export function validateTaskOptions(options: unknown, name: unknown): void {
  const label = memberLabel('@Task', name);
  assertConfig(taskOptionsSchema, options, label, 'options');
  const { concurrent, concurrency, settle, errorMergeStrategy } = (options ?? {}) as Record<string, unknown>;
  // Combinations that would be silently ignored are refused, like unknown keys.
  if (concurrency !== undefined && concurrent !== true) {
    throw new UsageError(`${label}: options.concurrency needs concurrent: true (without it the children run one at a time).`);
  }
  if (settle === 'all' && errorMergeStrategy !== undefined) {
    throw new UsageError(`${label}: options.errorMergeStrategy has no effect with settle: "all" (no failure is thrown to merge); leave one out.`);
  }
}
