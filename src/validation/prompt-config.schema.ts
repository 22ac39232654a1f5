import { assertZod4 } from './zod-version.js';
import { assertConfig } from './assert-config.js';
import { agentSettingsShape } from './agent-settings.schema.js';
import { expected, isObject, nonEmptyText, strict, zodSchema } from './fields.js';
import { labelOf } from '../util/check/label.js';

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
