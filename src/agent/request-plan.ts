import type { Prompt } from './prompt.js';

// Prompts are immutable, so their user message is built once.
const contents = new WeakMap<Prompt<unknown>, string>();

/** The user message: the prompt's text, then its data as JSON when there is any. */
export function buildUserContent(prompt: Prompt<unknown>): string {
  let content = contents.get(prompt);
  if (content === undefined) {
    content =
      Object.keys(prompt.data).length === 0
        ? prompt.user
        : `${prompt.user}\n\n<data>\n${JSON.stringify(prompt.data, null, 2)}\n</data>`;
    contents.set(prompt, content);
  }
  return content;
}
