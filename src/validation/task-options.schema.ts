import { assertConfig } from './assert-config.js';
import { errorMergeSchema } from './error-merge.schema.js';
import { flag, nonEmptyText, strict } from './fields.js';
import { memberLabel } from './label.js';

const taskOptionsSchema = strict(
  { name: nonEmptyText.optional(), concurrent: flag.optional(), errorMergeStrategy: errorMergeSchema.optional() },
  'an object of task options',
);

/** `@Task(options)`, once at decoration. */
export function validateTaskOptions(options: unknown, name: unknown): void {
  assertConfig(taskOptionsSchema, options, memberLabel('@Task', name), 'options');
}
