import { goalTextOf, matchCheckbox } from './plan-checkbox.js';
import type { PlanGoal } from './plan-goal.js';
import { scanPlan } from './plan-structure.js';
import { readGoal } from './read-goal.js';

/** A heading and the lines it owns, up to the next heading of the same or a higher level. */
export interface PlanSection {
  /** The heading text without the `#` marks. */
  readonly heading: string;
  readonly level: number;
  /** 0-based line index of the heading. */
  readonly line: number;
  /** 0-based line index just past the section's last line. */
  readonly endLine: number;
}

export interface ParsedPlan {
  /** The first `#` heading's text, or '' when the file has none. */
  readonly title: string;
  readonly sections: readonly PlanSection[];
  /** The goal lines above the fold, in file order. Goals below it (the appendix) are not approved. */
  readonly goals: readonly PlanGoal[];
  /**
   * 0-based line index of the fold: the `## Log` heading. When the file has no Log section it is
   * where one belongs (before `## Learnings`/`## Papercuts`/`## Appendix`, else past the last line).
   */
  readonly foldIndex: number;
  /** Whether the file has a `## Log` heading. */
  readonly hasLog: boolean;
}

/**
 * Reads a plan file natively: no schema, just the conventions (headings, `goal:` checkbox lines,
 * their sub-bullets, the `## Log` fold). Total: any text parses; a file without goals has none.
 */
export function parsePlan(text: string): ParsedPlan {
  const structure = scanPlan(text);
  const { headings, lines } = structure;
  const sections = headings.map((heading, i): PlanSection => {
    const next = headings.slice(i + 1).find((h) => h.level <= heading.level);
    return { heading: heading.text, level: heading.level, line: heading.line, endLine: next?.line ?? lines.length };
  });
  const goals: PlanGoal[] = [];
  for (let index = 0; index < structure.foldLine; index++) {
    if (structure.inFence[index] === true) continue;
    const checkbox = matchCheckbox(lines[index]?.text ?? '');
    if (checkbox === undefined || goalTextOf(checkbox) === undefined) continue;
    const goal = readGoal(structure, index);
    if (goal !== undefined) goals.push(goal);
  }
  return {
    title: headings.find((h) => h.level === 1)?.text ?? '',
    sections,
    goals,
    foldIndex: structure.foldLine,
    hasLog: structure.logLine !== -1,
  };
}
