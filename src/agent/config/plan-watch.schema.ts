import { integer, nonEmptyText, strict } from '../../checks/config-fields.js';

/** `plan` of an agent / `new PlanWatcher(options)`. */
export const planWatchSchema = strict(
  {
    path: nonEmptyText,
    staleAfterTurns: integer(1).optional(),
    reminderChars: integer(1).optional(),
    resyncChars: integer(1).optional(),
  },
  'an object like { path: "PLAN.md" }',
);
