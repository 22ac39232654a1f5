import { UsageError } from '../errors/groundswell-error.js';
import { findGoal, type FindGoalOptions } from './find-goal.js';
import { matchCheckbox } from './plan-checkbox.js';
import { checkboxMark, PLAN_GOAL_STATUSES, type PlanGoal, type PlanGoalStatus } from './plan-goal.js';
import { splitPlanLines } from './plan-lines.js';

/**
 * New plan text with one goal's checkbox set to `status`; every other byte is unchanged. `goal` is
 * a query (see `findGoal`) or a goal from an earlier parse. The goal is looked up again in `text`
 * by its wording, not trusted by line number, because the file may have been edited since.
 */
export function setGoalStatus(
  text: string,
  goal: PlanGoal | string,
  status: PlanGoalStatus,
  options: FindGoalOptions = {},
): string {
  if (!PLAN_GOAL_STATUSES.includes(status)) {
    throw new UsageError(`setGoalStatus: unknown status "${String(status)}"; use one of ${PLAN_GOAL_STATUSES.join(', ')}`);
  }
  const target = findGoal(text, typeof goal === 'string' ? goal : goal.text, options);
  const line = splitPlanLines(text)[target.line];
  const checkbox = line === undefined ? undefined : matchCheckbox(line.text);
  if (line === undefined || checkbox === undefined) {
    // findGoal read this very line as a goal a moment ago, so this is a bug in this module.
    throw new UsageError(`setGoalStatus: goal line ${target.line} is not a checkbox line`);
  }
  const at = line.start + checkbox.markColumn;
  return `${text.slice(0, at)}${checkboxMark(status)}${text.slice(at + 1)}`;
}
