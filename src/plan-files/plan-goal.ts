/** A goal's checkbox state: `[ ]` open, `[/]` active, `[x]` done, `[-]` dropped (cancelled). */
export type PlanGoalStatus = 'open' | 'active' | 'done' | 'dropped';

/** A subtask checkbox under a goal's `tasks:` bullet. */
export interface PlanTask {
  readonly text: string;
  readonly status: PlanGoalStatus;
  /** 0-based line index. */
  readonly line: number;
}

/** One `goal:` checkbox line above the fold, with the sub-bullets the plan convention gives it. */
export interface PlanGoal {
  /** The text after `goal:`, trimmed. */
  readonly text: string;
  readonly status: PlanGoalStatus;
  /** 0-based line index of the goal's checkbox line. */
  readonly line: number;
  /** The `subtle failure mode:` bullet (continuation lines joined with a space). */
  readonly subtleFailureMode?: string;
  /** The `discriminator:` bullet: the observation that tells real success from the failure mode. */
  readonly discriminator?: string;
  /** The optional `verify:` shell command. */
  readonly verify?: string;
  readonly tasks: readonly PlanTask[];
  /**
   * Items of the `evidence:` bullet: its nested bullets, plus its inline text when that is not a
   * parenthesised placeholder such as `(empty until sign-off)`. Empty means nothing was filled in.
   */
  readonly evidence: readonly string[];
}

export const PLAN_GOAL_STATUSES: readonly PlanGoalStatus[] = ['open', 'active', 'done', 'dropped'];

const MARK_OF: Readonly<Record<PlanGoalStatus, string>> = { open: ' ', active: '/', done: 'x', dropped: '-' };

/** The character between the brackets for `status`. */
export function checkboxMark(status: PlanGoalStatus): string {
  return MARK_OF[status];
}

/** The status a checkbox character stands for; `X` counts as done, as markdown renderers treat it. */
export function statusOfMark(mark: string): PlanGoalStatus | undefined {
  switch (mark) {
    case ' ':
      return 'open';
    case '/':
      return 'active';
    case 'x':
    case 'X':
      return 'done';
    case '-':
      return 'dropped';
    default:
      return undefined;
  }
}
