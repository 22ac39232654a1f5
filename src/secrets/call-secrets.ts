import type { Workflow } from '../core/workflow.js';
import { redactedValues } from '../core/redacted-values.js';
import { SecretMasker } from '../util/secret-masker.js';

/**
 * The secrets of one agent call: the redacted field values along its workflow chain and the
 * values of its `env`. Read once per call.
 */
export function callSecrets(workflow: Workflow | undefined, env: Readonly<Record<string, string>>): SecretMasker {
  const values = redactedValues(workflow);
  for (const key in env) if (Object.hasOwn(env, key)) values.push(env[key] as string);
  return values.length === 0 ? SecretMasker.NONE : SecretMasker.of(values);
}
