import { assertConfig } from '../checks/assert-config.js';
import { planWatchSchema } from '../agent/config/plan-watch.schema.js';

/** `new PlanWatcher(options)` (an agent's `plan` is checked with the agent config). */
export function validatePlanWatchOptions(options: unknown): void {
  assertConfig(planWatchSchema, options, 'PlanWatcher', 'options');
}
