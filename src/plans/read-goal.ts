import { goalTextOf, indentWidth, matchCheckbox } from './plan-checkbox.js';
import type { PlanGoal, PlanTask } from './plan-goal.js';
import type { PlanStructure } from './plan-structure.js';

type FieldKey = 'subtleFailureMode' | 'discriminator' | 'verify' | 'tasks' | 'evidence';

// Models write these keys with small variations; all of them mean the same sub-bullet.
const KEY_ALIASES: Readonly<Record<string, FieldKey>> = {
  'subtle failure mode': 'subtleFailureMode',
  'subtle failure modes': 'subtleFailureMode',
  'failure mode': 'subtleFailureMode',
  'failure modes': 'subtleFailureMode',
  discriminator: 'discriminator',
  verify: 'verify',
  tasks: 'tasks',
  task: 'tasks',
  subtasks: 'tasks',
  evidence: 'evidence',
};

const BULLET = /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(.*)$/;
const KEYED = /^([A-Za-z][A-Za-z ]*?)[ \t]*:[ \t]*(.*)$/;
// `(empty until sign-off)` and similar: a note to the reader, not evidence.
const PLACEHOLDER = /^\(.*\)$/s;

interface BlockLine {
  readonly index: number;
  readonly text: string;
  readonly indent: number;
}

interface Field {
  readonly key: FieldKey | undefined;
  readonly inline: string;
  readonly children: BlockLine[];
}

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

  const block = goalBlock(structure, goalLine, indentWidth(line.text));
  const fields = splitFields(block);
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

function goalBlock(structure: PlanStructure, goalLine: number, goalIndent: number): BlockLine[] {
  const headingLines = new Set(structure.headings.map((h) => h.line));
  const block: BlockLine[] = [];
  for (let index = goalLine + 1; index < structure.foldLine; index++) {
    const text = structure.lines[index]?.text ?? '';
    if (headingLines.has(index)) break;
    if (text.trim() === '') continue;
    const indent = indentWidth(text);
    if (indent <= goalIndent && structure.inFence[index] !== true) break;
    block.push({ index, text, indent });
  }
  return block;
}

/** Groups the block by its shallowest bullets, the goal's own sub-bullets. */
function splitFields(block: readonly BlockLine[]): Field[] {
  const first = block.find((l) => BULLET.test(l.text));
  if (first === undefined) return [];
  const fieldIndent = first.indent;
  const fields: Field[] = [];
  let current: Field | undefined;
  for (const line of block) {
    const bullet = line.indent <= fieldIndent ? BULLET.exec(line.text) : null;
    if (bullet !== null) {
      const keyed = KEYED.exec((bullet[1] ?? '').trim());
      const key = keyed === null ? undefined : KEY_ALIASES[normaliseKey(keyed[1] ?? '')];
      current = { key, inline: key === undefined ? '' : (keyed?.[2] ?? '').trim(), children: [] };
      fields.push(current);
    } else {
      current?.children.push(line);
    }
  }
  return fields;
}

function normaliseKey(key: string): string {
  return key.trim().toLowerCase().replace(/\s+/g, ' ');
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
function readEvidence(field: Field): string[] {
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
