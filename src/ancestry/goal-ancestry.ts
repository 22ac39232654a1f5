import type { GoalAncestry } from '../types/goal-ancestry.js';
import { oneLine } from '../util/one-line.js';

export type { GoalAncestry };

export const GOAL_ANCESTRY_HEADING = "# Why You're Here";
const GOAL_ANCESTRY_VALUE_LIMIT = 200;

const LEVELS = [
  ['mission', 'Mission'],
  ['project', 'Project'],
  ['goal', 'Goal'],
  ['task', 'Task'],
] as const;

/**
 * The `# Why You're Here` section: one `Label: value` line per present level, mission → project →
 * goal → task, each value on one line and capped at 200 characters ending in `...`. Returns ''
 * when there is nothing to say. Pure and total: any input, never a throw.
 */
export function renderGoalAncestry(ancestry: GoalAncestry | null | undefined): string {
  try {
    if (ancestry === null || typeof ancestry !== 'object') return '';
    const lines: string[] = [];
    for (const [key, label] of LEVELS) {
      const value = readLevel(ancestry, key);
      if (value !== '') lines.push(`${label}: ${value}`);
    }
    return lines.length === 0 ? '' : `${GOAL_ANCESTRY_HEADING}\n${lines.join('\n')}`;
  } catch {
    return '';
  }
}

/** One level, cleaned; '' when it cannot be read (a throwing getter costs only its own line). */
function readLevel(ancestry: object, key: string): string {
  try {
    return cleanValue((ancestry as Record<string, unknown>)[key]);
  } catch {
    return '';
  }
}

/**
 * One line of plain text: control characters and line breaks become spaces (a value cannot forge
 * another line or heading), runs of whitespace collapse, and the result is capped.
 */
function cleanValue(value: unknown): string {
  return typeof value === 'string' ? oneLine(value, GOAL_ANCESTRY_VALUE_LIMIT) : '';
}

/** The ancestry with every level cleaned and empty levels dropped ({} when nothing is left). */
export function normalizeAncestry(ancestry: GoalAncestry | null | undefined): GoalAncestry {
  const out: GoalAncestry = {};
  if (ancestry === null || typeof ancestry !== 'object') return out;
  for (const [key] of LEVELS) {
    const value = readLevel(ancestry, key);
    if (value !== '') out[key] = value;
  }
  return out;
}
