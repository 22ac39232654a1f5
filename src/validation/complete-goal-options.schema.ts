import { assertConfig } from './assert-config.js';
import { func, nonEmptyText, strict } from './fields.js';
import { clientSchema } from './services.schema.js';

const completeGoalOptionsSchema = strict(
  {
    planPath: nonEmptyText,
    root: nonEmptyText,
    judge: strict({ client: clientSchema.optional(), model: nonEmptyText.optional() }, 'an object like { client?, model? }'),
    now: func.optional(),
  },
  'an object like { planPath, root, judge: { client } }',
);

/** `completeGoalTool(options)` and `signOffGoal(options, goal)`. */
export function validateCompleteGoalOptions(options: unknown, where: 'completeGoalTool' | 'signOffGoal'): void {
  assertConfig(completeGoalOptionsSchema, options, where, 'options');
}

/** The goal text `signOffGoal` looks up in the plan. */
export function validateGoalQuery(goal: unknown): void {
  assertConfig(nonEmptyText, goal, 'signOffGoal', 'goal');
}
