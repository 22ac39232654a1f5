import { GOAL_ANCESTRY_HEADING } from '../ancestry/goal-ancestry.js';
import type { RecordedRequest } from './recorded-request.js';

// Sections the framework adds after the identity. When one of them comes first, the agent has no
// `system` text of its own, and naming it by a section every agent shares would route wrongly.
const ADDED_SECTIONS = [GOAL_ANCESTRY_HEADING, '# Lessons from a failed attempt'];

/**
 * The calling agent's identity as the request shows it: the first section of its system prompt
 * (the agent's `system` text, with its skills). The agent's name is not sent to the API, so the
 * system text is what tells two agents sharing one scripted model apart. Later sections (goal
 * ancestry, reflection guidance, checkpoints) are separate blocks and are left out, so the value
 * stays the same across turns and workflows. Undefined when the request has no system prompt.
 */
export function callingAgent(request: RecordedRequest): string | undefined {
  const system: unknown = request.body.system;
  if (typeof system === 'string') return system === '' ? undefined : system;
  if (!Array.isArray(system)) return undefined;
  const first: unknown = system[0];
  if (typeof first !== 'object' || first === null || !('text' in first) || typeof first.text !== 'string') return undefined;
  const identity = first.text;
  if (identity === '' || ADDED_SECTIONS.some((heading) => identity.startsWith(heading))) return undefined;
  return identity;
}
