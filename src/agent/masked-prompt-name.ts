import { defaultPromptName, type Prompt } from './prompt.js';
import type { SecretMasker } from '../util/secret-masker.js';

/**
 * The prompt's name with secrets masked, for the tree and for cache entry headers. A default
 * name is the start of the user message cut short: cut first, a secret could be cut in half and
 * no longer be recognised, so the whole message is masked before it is cut again.
 */
export function maskedPromptName(prompt: Prompt<unknown>, secrets: SecretMasker): string {
  if (!secrets.active) return prompt.name;
  return prompt.name === defaultPromptName(prompt.user) ? defaultPromptName(secrets.text(prompt.user)) : secrets.text(prompt.name);
}
