import { assertZod4 } from '../../checks/zod-version.js';
import { assertConfig } from '../../checks/assert-config.js';
import { agentSettingsShape } from './agent-settings.schema.js';
import { expected, isObject, nonEmptyText, strict, zodSchema } from '../../checks/config-fields.js';
import { labelOf } from '../../checks/label.js';

const promptConfigSchema = strict(
  {
    ...agentSettingsShape,
    user: nonEmptyText,
    data: expected('a plain object of JSON data', isObject).optional(),
    responseFormat: zodSchema,
    name: nonEmptyText.optional(),
  },
  'an object like { user, responseFormat: z.object({...}) }',
);

/** `new Prompt(config)` / `createPrompt(config)`; also the copies `withUser`/`withData` make. */
export function validatePromptConfig(config: unknown): void {
  assertZod4();
  assertConfig(promptConfigSchema, config, () => labelOf('Prompt', config));
}
