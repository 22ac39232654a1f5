import type { Prompt } from '../prompt/prompt.js';

/** The user message: the prompt's text, then its data as JSON when there is any. */
export function buildUserContent(prompt: Prompt<unknown>): string {
  if (Object.keys(prompt.data).length === 0) return prompt.user;
  return `${prompt.user}\n\n<data>\n${JSON.stringify(prompt.data, null, 2)}\n</data>`;
}
