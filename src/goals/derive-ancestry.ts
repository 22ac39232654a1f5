import { readFileSync } from 'node:fs';
import type { Workflow } from '../core/workflow.js';
import { activeGoal } from '../plans/index.js';
import { observedFieldsOf } from '../decorators/observed-state.js';
import type { GoalAncestry } from './goal-ancestry.js';

const DERIVED_LEVELS = ['mission', 'project', 'goal'] as const;

/**
 * The ancestry declared by a workflow and its parents: for each level, the nearest declaration
 * walking up from `workflow` wins. `task` is never derived.
 */
export function deriveGoalAncestry(workflow: Workflow | undefined): GoalAncestry {
  const out: GoalAncestry = {};
  for (let w = workflow; w !== undefined && w !== null; w = w.parent ?? undefined) {
    for (const level of DERIVED_LEVELS) {
      // A workflow with a plan but no declared goal works on its plan's active ([/]) goal.
      const value = level === 'goal' && w.config.goal === undefined ? activePlanGoal(w.config.plan) : w.config[level];
      if (out[level] === undefined && typeof value === 'string' && value.trim() !== '') out[level] = value;
    }
  }
  return out;
}

function activePlanGoal(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    return activeGoal(readFileSync(path, 'utf8'))?.text;
  } catch {
    return undefined;
  }
}

/** Explicit values win over derived ones, level by level. */
export function mergeAncestry(derived: GoalAncestry, explicit: GoalAncestry | null): GoalAncestry {
  if (explicit === null) return derived;
  const out: GoalAncestry = { ...derived };
  for (const level of ['mission', 'project', 'goal', 'task'] as const) {
    const value = explicit[level];
    if (typeof value === 'string' && value.trim() !== '') out[level] = value;
  }
  return out;
}

/**
 * The current values of `redact: true` fields along the chain, so the section can mask them if a
 * declaration happened to include one (for example a goal built from a token).
 */
export function secretsOf(workflow: Workflow | undefined): string[] {
  const secrets: string[] = [];
  for (let w = workflow; w !== undefined && w !== null; w = w.parent ?? undefined) {
    for (const field of observedFieldsOf(w)) {
      if (!field.redact) continue;
      collectSecrets(field.read(w), secrets, 0);
    }
  }
  return secrets;
}

/** The primitive leaves of a redacted value (a redacted object hides all of its strings). */
function collectSecrets(value: unknown, into: string[], depth: number): void {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') {
    const text = String(value);
    // Very short values would mask ordinary words; a secret that short is no secret anyway.
    if (text.length >= 4) into.push(text);
    return;
  }
  if (typeof value !== 'object' || value === null || depth > 4) return;
  for (const child of Object.values(value)) collectSecrets(child, into, depth + 1);
}

/** Every occurrence of a secret replaced by '***', longest secrets first. */
export function maskSecrets(ancestry: GoalAncestry, secrets: readonly string[]): GoalAncestry {
  if (secrets.length === 0) return ancestry;
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  const out: GoalAncestry = {};
  for (const [level, value] of Object.entries(ancestry) as Array<[keyof GoalAncestry, string | undefined]>) {
    if (value === undefined) continue;
    let masked = value;
    for (const secret of ordered) masked = masked.split(secret).join('***');
    out[level] = masked;
  }
  return out;
}
