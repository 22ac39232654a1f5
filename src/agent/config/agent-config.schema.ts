import { assertConfig } from '../../checks/assert-config.js';
import { agentSettingsShape, promptOverridesSchema } from './agent-settings.schema.js';
import { nonEmptyText, strict } from '../../checks/config-fields.js';
import { goalAncestrySchema } from '../../ancestry/goal-ancestry.schema.js';
import { labelOf, memberLabel } from '../../checks/label.js';
import { planWatchSchema } from './plan-watch.schema.js';
import { pricingSchema } from './pricing.schema.js';
import { cacheSchema, clientSchema } from './services.schema.js';
import { trajectoryOptionsSchema } from './trajectory-options.schema.js';
import { providersSchema } from '../../checks/providers.schema.js';
import { budgetSchema } from '../../budgets/budget.schema.js';

const agentConfigSchema = strict(
  {
    ...agentSettingsShape,
    name: nonEmptyText,
    client: clientSchema.optional(),
    cache: cacheSchema.optional(),
    pricing: pricingSchema.optional(),
    providers: providersSchema.optional(),
    goalAncestry: goalAncestrySchema.optional(),
    trajectory: trajectoryOptionsSchema.optional(),
    plan: planWatchSchema.optional(),
    budget: budgetSchema.optional(),
  },
  'an object (the agent config)',
);

/** `new Agent(config)` / `createAgent(config)`. */
export function validateAgentConfig(config: unknown): void {
  assertConfig(agentConfigSchema, config, () => labelOf('Agent', config));
}

/** The overrides of one call (`agent.prompt(prompt, overrides)`, `execute`, `stream`, `reflect`). */
export function validateOverrides(overrides: unknown, agentName: string): void {
  assertConfig(promptOverridesSchema, overrides, () => memberLabel('Agent', agentName), 'overrides');
}

/** `agent.setGoalAncestry(ancestry)`; null clears it. */
export function validateGoalAncestry(ancestry: unknown, agentName: string): void {
  if (ancestry !== null) assertConfig(goalAncestrySchema, ancestry, `${memberLabel('Agent', agentName)}: setGoalAncestry`, 'ancestry');
}
