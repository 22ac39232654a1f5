import { assertConfig } from '../checks/assert-config.js';
import { flag, func, integer, nonEmptyText, strict } from '../checks/config-fields.js';
import { pricingSchema } from '../agent/config/pricing.schema.js';
import { cacheSchema, clientSchema } from '../agent/config/services.schema.js';
import { providersSchema } from '../checks/providers.schema.js';
import { modelSetting } from '../agent/config/agent-settings.schema.js';

// The judge agent's settings (JudgeSettings); the same ranges as the agent config's.
const judgeSettingsSchema = strict(
  {
    client: clientSchema.optional(),
    model: modelSetting.optional(),
    providers: providersSchema.optional(),
    maxTokens: integer(1).optional(),
    pricing: pricingSchema.optional(),
    enableCache: flag.optional(),
    cache: cacheSchema.optional(),
  },
  'an object like { client?, model?, providers?, maxTokens?, pricing?, enableCache?, cache? }',
);

const completeGoalOptionsSchema = strict(
  {
    planPath: nonEmptyText,
    root: nonEmptyText,
    judge: judgeSettingsSchema,
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
