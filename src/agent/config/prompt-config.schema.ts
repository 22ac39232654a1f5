import { assertZod4 } from '../../checks/zod-version.js';
import { assertConfig } from '../../checks/assert-config.js';
import { unanswerablePart } from '../../checks/answer-format.js';
import { UsageError } from '../../errors/groundswell-error.js';
import { errorMessage } from '../../util/describe.js';
import { agentSettingsShape } from './agent-settings.schema.js';
import { expected, isObject, nonEmptyText, strict, zodSchema } from '../../checks/config-fields.js';
import { labelOf } from '../../checks/label.js';
import { budgetSchema } from '../../budgets/budget.schema.js';

const promptConfigSchema = strict(
  {
    ...agentSettingsShape,
    user: nonEmptyText,
    data: expected('a plain object of JSON data', isObject).optional(),
    responseFormat: zodSchema,
    name: nonEmptyText.optional(),
    budget: budgetSchema.optional(),
  },
  'an object like { user, responseFormat: z.object({...}) }',
);

/** `new Prompt(config)` / `createPrompt(config)`; also the copies `withUser`/`withData` make. */
export function validatePromptConfig(config: unknown): void {
  assertZod4();
  assertConfig(promptConfigSchema, config, () => labelOf('Prompt', config));
  assertAnswerable((config as { responseFormat: unknown }).responseFormat, config);
}

/**
 * A format no answer can satisfy (z.function(), z.date(), ...) would only fail at the first call,
 * after a paid request, or be sent to the model as "anything": refused here, naming the part.
 */
function assertAnswerable(format: unknown, config: unknown): void {
  let part: ReturnType<typeof unanswerablePart>;
  try {
    part = unanswerablePart(format);
  } catch (cause) {
    // A schema's own JSON-schema hook that throws: zod would throw the same at the call.
    throw new UsageError(`${labelOf('Prompt', config)}: config.responseFormat could not be read (${errorMessage(cause)}).`, { cause });
  }
  if (part === undefined) return;
  const where = part.at === '' ? `is ${part.type}` : `has ${part.type} at ${part.at}`;
  throw new UsageError(`${labelOf('Prompt', config)}: config.responseFormat ${where}, which a model's JSON answer cannot satisfy: ${part.why}.`);
}
