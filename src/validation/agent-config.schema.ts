import { assertConfig } from './assert-config.js';
import { agentSettingsShape, promptOverridesSchema } from './agent-settings.schema.js';
import { nonEmptyText, numberIn, strict } from './fields.js';
import { goalAncestrySchema } from './goal-ancestry.schema.js';
import { labelOf, memberLabel } from './label.js';
import { planWatchSchema } from './plan-watch.schema.js';
import { cacheSchema, clientSchema } from './services.schema.js';
import { trajectoryOptionsSchema } from './trajectory-options.schema.js';
import { z } from 'zod';

const price = numberIn(0, Number.MAX_VALUE);
const modelPriceSchema = strict(
  { inputPerMTok: price, outputPerMTok: price, cacheWritePerMTok: price.optional(), cacheReadPerMTok: price.optional() },
  'a price like { inputPerMTok: 3, outputPerMTok: 15 }',
);

const agentConfigSchema = strict(
  {
    ...agentSettingsShape,
    name: nonEmptyText,
    client: clientSchema.optional(),
    cache: cacheSchema.optional(),
    pricing: z.record(z.string(), modelPriceSchema, { error: 'an object mapping model ids to prices' }).optional(),
    goalAncestry: goalAncestrySchema.optional(),
    trajectory: trajectoryOptionsSchema.optional(),
    plan: planWatchSchema.optional(),
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
