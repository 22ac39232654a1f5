import type { Workflow } from '../core/workflow.js';
import { addRunSecrets } from './run-secrets.js';
import { redactedValues } from './redacted-values.js';
import { SecretMasker } from './secret-masker.js';

/**
 * The secrets of one agent call: the redacted field values along its workflow chain and the
 * values of its `env`. Read once per call; also added to the run, so everything the run stores
 * from now on (events, logs, errors) is masked with them.
 */
export function callSecrets(workflow: Workflow | undefined, env: Readonly<Record<string, string>>): SecretMasker {
  const masker = SecretMasker.of([...redactedValues(workflow), ...Object.values(env)]);
  if (workflow !== undefined && masker.active) addRunSecrets(workflow, masker);
  return masker;
}
