import { statusOfMark, type PlanGoalStatus } from './plan-goal.js';

/** A list item with a checkbox, as in `1. [x] goal: ...` or `- [ ] subtask`. */
export interface PlanCheckbox {
  readonly status: PlanGoalStatus;
  /** Column of the character between the brackets, so a tick rewrites that one character. */
  readonly markColumn: number;
  /** The text after the checkbox, trimmed. */
  readonly rest: string;
}

const CHECKBOX = /^([ \t]*(?:\d{1,9}[.)]|[-*+])[ \t]+\[)([ \/xX-])\][ \t]+(.*)$/;
const GOAL_PREFIX = /^goal:[ \t]*/i;

export function matchCheckbox(lineText: string): PlanCheckbox | undefined {
  const match = CHECKBOX.exec(lineText);
  if (match === null) return undefined;
  const status = statusOfMark(match[2] ?? '');
  if (status === undefined) return undefined;
  return { status, markColumn: (match[1] ?? '').length, rest: (match[3] ?? '').trim() };
}

/** The goal text when `lineText` is a goal line (a checkbox whose text begins `goal:`). */
export function goalTextOf(checkbox: PlanCheckbox): string | undefined {
  return GOAL_PREFIX.test(checkbox.rest) ? checkbox.rest.replace(GOAL_PREFIX, '').trim() : undefined;
}

/** Indentation width, a tab counting as four columns (enough to compare nesting, not to render). */
export function indentWidth(lineText: string): number {
  let width = 0;
  for (const ch of lineText) {
    if (ch === ' ') width += 1;
    else if (ch === '\t') width += 4 - (width % 4);
    else break;
  }
  return width;
}
