import { parsePlan } from './parse-plan.js';
import type { PlanGoal } from './plan-goal.js';

/**
 * The goal marked `[/]`, or undefined. The convention keeps one goal active at a time; if a plan has
 * several, the first one in file order wins, as that is the one a reader meets first.
 */
export function activeGoal(text: string): PlanGoal | undefined {
  return parsePlan(text).goals.find((goal) => goal.status === 'active');
}
