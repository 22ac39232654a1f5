// `groundswell/plans`: goal plans, sign-off and the read-only judge. An integration,
// not everyday vocabulary, so it is its own entry. The prompt wording (judge and drafting system
// prompts, reminders) and the verdict parser stay internal: they change with the prompts.
export { activeGoal, appendEvidence, appendLog, findGoal, parsePlan, setGoalStatus, workingSet } from '../plan-files/index.js';
export type {
  FindGoalOptions,
  ParsedPlan,
  PlanGoal,
  PlanGoalCandidate,
  PlanGoalStatus,
  PlanSection,
  PlanTask,
  WorkingSetOptions,
} from '../plan-files/index.js';
export { PlanGoalNotFoundError } from '../plan-files/index.js';
export { completeGoalTool, signOffGoal } from './complete-goal.js';
export type { CompleteGoalOptions, JudgeSettings, SignOff } from './complete-goal.js';
export { createPlanDrafter, planDraftingTools } from './plan-drafter.js';
export type { PlanDrafterOptions } from './plan-drafter.js';
export { PlanWatcher } from './plan-watcher.js';
export type { PlanWatchOptions } from '../agent/config/plan-watch-options.js';
export { readOnlyTools } from '../file-tools/read-only-tools.js';
export type { ReadOnlyToolsOptions } from '../file-tools/read-only-tools.js';
export { PathOutsideRootError, ReadOnlyToolError } from '../file-tools/errors.js';

// Agents made through this entry (the judge, the drafter, workers' calls) get the same features.
import { installFeatures } from '../install.js';
installFeatures();
