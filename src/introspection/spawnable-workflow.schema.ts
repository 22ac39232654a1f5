import { assertConfig } from '../checks/assert-config.js';
import { func, strict, text, zodSchema } from '../checks/config-fields.js';

const spawnableWorkflowSchema = strict(
  { create: func, description: text.optional(), input: zodSchema },
  'an object like { create(input), input: z.object({...}), description? }',
);

/** `defineSpawnableWorkflow(entry)`. */
export function validateSpawnableWorkflow(entry: unknown): void {
  assertConfig(spawnableWorkflowSchema, entry, 'defineSpawnableWorkflow', 'entry');
}
