import { assertConfig } from '../checks/assert-config.js';
import { nonEmptyText, strict } from '../checks/config-fields.js';
import { clientSchema } from '../agent/config/services.schema.js';
import { providersSchema } from '../checks/providers.schema.js';
import { modelSetting } from '../agent/config/agent-settings.schema.js';

const planDrafterOptionsSchema = strict(
  { name: nonEmptyText.optional(), root: nonEmptyText, planPath: nonEmptyText, client: clientSchema.optional(), model: modelSetting.optional(), providers: providersSchema.optional() },
  'an object like { root, planPath, client? }',
);

/** `createPlanDrafter(options)`. */
export function validatePlanDrafterOptions(options: unknown): void {
  assertConfig(planDrafterOptionsSchema, options, 'createPlanDrafter', 'options');
}

/** `planDraftingTools(root, planPath)`. */
export function validatePlanDraftingPaths(root: unknown, planPath: unknown): void {
  assertConfig(nonEmptyText, root, 'planDraftingTools', 'root');
  assertConfig(nonEmptyText, planPath, 'planDraftingTools', 'planPath');
}
