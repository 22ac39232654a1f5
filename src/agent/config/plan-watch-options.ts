/** `plan` on an agent: the plan file its tool loop keeps in view. */
export interface PlanWatchOptions {
  path: string;
  /** Model turns without an edit to the plan before the folded plan is re-sent (default 3). */
  staleAfterTurns?: number;
  /** Cap of the folded plan in a reminder (default 4,000 characters). */
  reminderChars?: number;
  /** Cap of the whole file in a resync (default 20,000 characters). */
  resyncChars?: number;
}
