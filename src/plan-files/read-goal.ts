import { BULLET, goalFields, PLACEHOLDER, type BlockLine, type GoalField } from './goal-fields.js';
import { goalTextOf, matchCheckbox } from './plan-checkbox.js';
import type { PlanGoal, PlanTask } from './plan-goal.js';
import type { PlanStructure } from './plan-structure.js';

/**
 * Reads the goal on line `goalLine`: its sub-bullets run until the next line indented no deeper
 * than the goal, a heading, or the fold. Returns undefined when the line is not a goal line.
 */
export function readGoal(structure: PlanStructure, goalLine: number): PlanGoal | undefined {
  const line = structure.lines[goalLine];
  if (line === undefined) return undefined;
  const checkbox = matchCheckbox(line.text);
  const text = checkbox === undefined ? undefined : goalTextOf(checkbox);
  if (checkbox === undefined || text === undefined) return undefined;

  const fields = goalFields(structure, goalLine);
  const goal: { -readonly [K in keyof PlanGoal]: PlanGoal[K] } = {
    text,
    status: checkbox.status,
    line: goalLine,
    tasks: [],
    evidence: [],
  };
  for (const field of fields) {
    switch (field.key) {
      case 'subtleFailureMode':
      case 'discriminator':
      case 'verify': {
        const value = joinText([field.inline, ...field.children.map((c) => c.text)]);
        if (value !== '' && goal[field.key] === undefined) goal[field.key] = value;
        break;
      }
      case 'tasks':
        goal.tasks = [...goal.tasks, ...readTasks(field.children)];
        break;
      case 'evidence':
        goal.evidence = [...goal.evidence, ...readEvidence(field)];
        break;
      default:
        break;
    }
  }
  return goal;
}

function readTasks(children: readonly BlockLine[]): PlanTask[] {
  const tasks: PlanTask[] = [];
  for (const child of children) {
    const checkbox = matchCheckbox(child.text);
    if (checkbox !== undefined) tasks.push({ text: checkbox.rest, status: checkbox.status, line: child.index });
  }
  return tasks;
}

/** Each item is a nested bullet with its continuation lines; inline text counts unless a placeholder. */
function readEvidence(field: GoalField): string[] {
  const items: string[][] = [];
  if (field.inline !== '' && !PLACEHOLDER.test(field.inline)) items.push([field.inline]);
  const itemIndent = field.children.find((c) => BULLET.test(c.text))?.indent;
  for (const child of field.children) {
    const bullet = itemIndent !== undefined && child.indent <= itemIndent ? BULLET.exec(child.text) : null;
    if (bullet !== null) items.push([bullet[1] ?? '']);
    else if (items.length > 0) items[items.length - 1]?.push(child.text);
    else if (!PLACEHOLDER.test(child.text.trim())) items.push([child.text]);
  }
  return items.map(joinText).filter((item) => item !== '' && !PLACEHOLDER.test(item));
}

function joinText(parts: readonly string[]): string {
  return parts
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .join(' ');
}
