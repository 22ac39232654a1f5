export { activeGoal } from './active-goal.js';
export { appendEvidence } from './append-evidence.js';
export { appendLog } from './append-log.js';
export {
  DEFAULT_GOAL_MATCH_MARGIN,
  DEFAULT_GOAL_MATCH_THRESHOLD,
  findGoal,
  type FindGoalOptions,
} from './find-goal.js';
export { goalSimilarity, goalTokens, normaliseGoalText } from './goal-similarity.js';
export { parsePlan, type ParsedPlan, type PlanSection } from './parse-plan.js';
export {
  checkboxMark,
  PLAN_GOAL_STATUSES,
  statusOfMark,
  type PlanGoal,
  type PlanGoalStatus,
  type PlanTask,
} from './plan-goal.js';
export { PlanGoalNotFoundError, type PlanGoalCandidate } from './plan-goal-not-found-error.js';
export { setGoalStatus } from './set-goal-status.js';
export { workingSet, workingSetTruncationMarker, type WorkingSetOptions } from './working-set.js';
