import { indentWidth } from './plan-checkbox.js';
import type { PlanStructure } from './plan-structure.js';

type GoalFieldKey = 'subtleFailureMode' | 'discriminator' | 'verify' | 'tasks' | 'evidence';

// Models write these keys with small variations; all of them mean the same sub-bullet.
const KEY_ALIASES: Readonly<Record<string, GoalFieldKey>> = {
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

/** A list item line: the marker (`-`, `*`, `+`, `1.`, `1)`) and its text in group 1. */
export const BULLET = /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(.*)$/;
// `(empty until sign-off)` and similar: a note to the reader, not evidence.
export const PLACEHOLDER = /^\(.*\)$/s;
const KEYED = /^([A-Za-z][A-Za-z ]*?)[ \t]*:[ \t]*(.*)$/;

/** A non-blank line of a goal's block. */
export interface BlockLine {
  /** 0-based line index in the file. */
  readonly index: number;
  readonly text: string;
  readonly indent: number;
}

/** One of the goal's own sub-bullets (`- evidence: ...`) and the deeper lines under it. */
export interface GoalField {
  /** The bullet line itself. */
  readonly bullet: BlockLine;
  /** undefined for a sub-bullet that is not one of the known keys. */
  readonly key: GoalFieldKey | undefined;
  /** The text after `key:` on the bullet line, trimmed ('' for an unknown key). */
  readonly inline: string;
  /** Non-blank lines under the bullet, up to the next field. */
  readonly children: readonly BlockLine[];
}

/**
 * The sub-bullets of the goal on line `goalLine`. The goal's block runs until the next line
 * indented no deeper than the goal, a heading, or the fold; blank lines inside it are skipped.
 * The parser and the editors share this so an edit lands where a later parse will read it.
 */
export function goalFields(structure: PlanStructure, goalLine: number): GoalField[] {
  const goalIndent = indentWidth(structure.lines[goalLine]?.text ?? '');
  return splitFields(goalBlock(structure, goalLine, goalIndent));
}

/** 0-based index of the last non-blank line of the goal's block (the goal line when it has none). */
export function goalBlockEnd(structure: PlanStructure, goalLine: number): number {
  const block = goalBlock(structure, goalLine, indentWidth(structure.lines[goalLine]?.text ?? ''));
  return block[block.length - 1]?.index ?? goalLine;
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
function splitFields(block: readonly BlockLine[]): GoalField[] {
  const first = block.find((l) => BULLET.test(l.text));
  if (first === undefined) return [];
  const fieldIndent = first.indent;
  const fields: { bullet: BlockLine; key: GoalFieldKey | undefined; inline: string; children: BlockLine[] }[] = [];
  for (const line of block) {
    const bullet = line.indent <= fieldIndent ? BULLET.exec(line.text) : null;
    if (bullet !== null) {
      const keyed = KEYED.exec((bullet[1] ?? '').trim());
      const key = keyed === null ? undefined : KEY_ALIASES[normaliseKey(keyed[1] ?? '')];
      fields.push({ bullet: line, key, inline: key === undefined ? '' : (keyed?.[2] ?? '').trim(), children: [] });
    } else {
      fields[fields.length - 1]?.children.push(line);
    }
  }
  return fields;
}

function normaliseKey(key: string): string {
  return key.trim().toLowerCase().replace(/\s+/g, ' ');
}
