import { UsageError } from '../errors/groundswell-error.js';
import { findGoal, type FindGoalOptions } from './find-goal.js';
import { BULLET, goalBlockEnd, goalFields, PLACEHOLDER, type BlockLine, type GoalField } from './goal-fields.js';
import { goalTextOf, matchCheckbox } from './plan-checkbox.js';
import type { PlanGoal } from './plan-goal.js';
import { dominantEol } from './plan-lines.js';
import { scanPlan, type PlanStructure } from './plan-structure.js';

// The text before a list item's content: indentation, marker, spacing.
const ITEM_PREFIX = /^([ \t]*)(?:[-*+]|(\d{1,9})([.)]))[ \t]+/;

/**
 * New plan text with `items` appended, in order, to one goal's `evidence:` list; every other byte
 * is unchanged. A goal without an `evidence:` sub-bullet gets one after its other sub-bullets. A
 * placeholder such as `evidence: (empty until sign-off)` is dropped from the bullet line, since it
 * is no longer true. `goal` is a query (see `findGoal`) or a goal from an earlier parse; it is
 * looked up again in `text` by its wording. New line endings copy the file's.
 */
export function appendEvidence(
  text: string,
  goal: PlanGoal | string,
  items: readonly string[],
  options: FindGoalOptions = {},
): string {
  const entries = checkedItems(items);
  const target = findGoal(text, typeof goal === 'string' ? goal : goal.text, options);
  const structure = scanPlan(text);
  const eol = dominantEol(text);
  const fields = goalFields(structure, target.line);
  const evidence = fields.filter((f) => f.key === 'evidence').at(-1);
  const edited =
    evidence === undefined
      ? insertAfter(text, structure, goalBlockEnd(structure, target.line), newField(structure, target.line, fields, entries), eol)
      : extendField(text, structure, evidence, entries, eol);

  // The edit must read back as exactly these items added; a layout this module cannot extend
  // without changing what the plan says is refused rather than written.
  const after = findGoal(edited, target.text, options).evidence;
  const expected = [...target.evidence, ...entries];
  if (after.length !== expected.length || after.some((item, i) => item !== expected[i])) {
    throw new UsageError(`appendEvidence: the evidence list of goal "${target.text}" is laid out in a way that cannot be extended safely`);
  }
  return edited;
}

function checkedItems(items: readonly string[]): string[] {
  if (!Array.isArray(items) || items.length === 0) {
    throw new UsageError('appendEvidence: give at least one evidence item (an array of strings)');
  }
  return items.map((item, i) => {
    if (typeof item !== 'string' || item.trim() === '') throw new UsageError(`appendEvidence: item ${i} must be a non-blank string`);
    if (/[\r\n]/.test(item)) throw new UsageError(`appendEvidence: item ${i} is one line; it must not contain line breaks`);
    const entry = item.trim();
    // The reader skips a fully parenthesised item as a placeholder, and reads a checkbox `goal:`
    // line as a goal: either would silently change what the plan says.
    if (PLACEHOLDER.test(entry)) throw new UsageError(`appendEvidence: item ${i} is wholly in parentheses, which reads as a placeholder`);
    const checkbox = matchCheckbox(`- ${entry}`);
    if (checkbox !== undefined && goalTextOf(checkbox) !== undefined) {
      throw new UsageError(`appendEvidence: item ${i} would read as a goal line ("[ ] goal: ...")`);
    }
    return entry;
  });
}

/** Items after the field's last line, at the indentation and marker of its existing items. */
function extendField(text: string, structure: PlanStructure, field: GoalField, entries: readonly string[], eol: string): string {
  const itemIndent = field.children.find((c) => BULLET.test(c.text))?.indent;
  const siblings = itemIndent === undefined ? [] : field.children.filter((c) => c.indent === itemIndent && BULLET.test(c.text));
  const model = siblings[siblings.length - 1];
  const lines = model === undefined ? nestedItems(field.bullet, entries) : itemsLike(model, entries);
  const last = field.children[field.children.length - 1]?.index ?? field.bullet.index;
  const inserted = insertAfter(text, structure, last, lines, eol);
  return PLACEHOLDER.test(field.inline) ? dropPlaceholder(inserted, structure, field.bullet) : inserted;
}

/** An `evidence:` bullet shaped like the goal's other sub-bullets, with the items under it. */
function newField(structure: PlanStructure, goalLine: number, fields: readonly GoalField[], entries: readonly string[]): string[] {
  const first = fields[0]?.bullet;
  const goalText = structure.lines[goalLine]?.text ?? '';
  // Without sibling sub-bullets, nest at the goal's content column (after `1. `), as markdown wants.
  const indent = first === undefined ? contentColumn(goalText) : (ITEM_PREFIX.exec(first.text)?.[1] ?? '');
  const bullet: BlockLine = { index: -1, text: `${indent}- evidence:`, indent: 0 };
  return [bullet.text, ...nestedItems(bullet, entries)];
}

/** `- item` lines one level under `parent`, at its content column. */
function nestedItems(parent: BlockLine, entries: readonly string[]): string[] {
  const indent = contentColumn(parent.text);
  return entries.map((entry) => `${indent}- ${entry}`);
}

/** Items with the same indentation and marker as `model`; a numbered list keeps counting. */
function itemsLike(model: BlockLine, entries: readonly string[]): string[] {
  const match = ITEM_PREFIX.exec(model.text);
  const indent = match?.[1] ?? '';
  const number = match?.[2];
  if (number === undefined) {
    const marker = model.text.slice(indent.length).trimStart()[0] ?? '-';
    return entries.map((entry) => `${indent}${marker} ${entry}`);
  }
  const delimiter = match?.[3] ?? '.';
  return entries.map((entry, i) => `${indent}${Number(number) + i + 1}${delimiter} ${entry}`);
}

/** The indentation that puts a line at `lineText`'s content column, tabs kept as they were. */
function contentColumn(lineText: string): string {
  const match = /^([ \t]*)((?:[-*+]|\d{1,9}[.)])[ \t]+)?/.exec(lineText);
  return `${match?.[1] ?? ''}${' '.repeat(match?.[2]?.length ?? 2)}`;
}

/** Lines after line `index`, before the blank lines that follow it; a missing final newline stays missing. */
function insertAfter(text: string, structure: PlanStructure, index: number, lines: readonly string[], eol: string): string {
  const line = structure.lines[index];
  if (line === undefined) throw new UsageError(`appendEvidence: line ${index} vanished while editing`);
  if (line.eol === '') return `${text}${lines.map((l) => `${eol}${l}`).join('')}`;
  const at = line.start + line.text.length + line.eol.length;
  return `${text.slice(0, at)}${lines.map((l) => `${l}${eol}`).join('')}${text.slice(at)}`;
}

/** `- evidence: (empty until sign-off)` becomes `- evidence:`; the line is before any insertion. */
function dropPlaceholder(text: string, structure: PlanStructure, bullet: BlockLine): string {
  const line = structure.lines[bullet.index];
  if (line === undefined) return text;
  const colon = line.text.indexOf(':');
  if (colon === -1) return text;
  return `${text.slice(0, line.start + colon + 1)}${text.slice(line.start + line.text.length)}`;
}
