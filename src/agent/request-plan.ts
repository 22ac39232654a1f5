import type { Prompt } from '../prompt/prompt.js';
import type { ResolvedSettings } from './agent-settings.js';
import { renderSkills } from './skill.js';

/**
 * The system prompt from its sections, in order: identity (the agent's or prompt's system), then
 * skills. Empty sections are left out entirely, so no stray headings or blank lines are sent.
 */
export function buildSystemPrompt(settings: ResolvedSettings): string | undefined {
  const sections = [settings.system?.trim() ?? '', renderSkills(settings.skills)].filter((section) => section !== '');
  return sections.length > 0 ? sections.join('\n\n') : undefined;
}

/** The user message: the prompt's text, then its data as JSON when there is any. */
export function buildUserContent(prompt: Prompt<unknown>): string {
  if (Object.keys(prompt.data).length === 0) return prompt.user;
  return `${prompt.user}\n\n<data>\n${JSON.stringify(prompt.data, null, 2)}\n</data>`;
}
