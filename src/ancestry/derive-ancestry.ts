import { readFileSync } from 'node:fs';
import type { Workflow } from '../core/workflow.js';
import { activeGoal } from '../plan-files/index.js';
import type { SecretMasker } from '../util/secret-masker.js';
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

/** Every form of every secret replaced by '***' in each level, before the levels are capped. */
export function maskAncestry(ancestry: GoalAncestry, secrets: SecretMasker): GoalAncestry {
  if (!secrets.active) return ancestry;
  const out: GoalAncestry = {};
  for (const [level, value] of Object.entries(ancestry) as Array<[keyof GoalAncestry, string | undefined]>) {
    if (value !== undefined) out[level] = secrets.text(value);
  }
  return out;
}
