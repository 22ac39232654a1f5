import { UsageError } from '../errors/groundswell-error.js';
import { dominantEol } from './plan-lines.js';
import { offsetOfLine, scanPlan, type PlanStructure } from './plan-structure.js';

/**
 * New plan text with `line` as the last line of the `## Log` section (after any `### date`
 * subsections, before the blank lines that separate it from `## Learnings`); every other byte is
 * unchanged. A plan with no Log section gets one at the fold. New line endings copy the file's.
 */
export function appendLog(text: string, line: string): string {
  if (/[\r\n]/.test(line)) {
    throw new UsageError('appendLog: a log entry is one line; it must not contain line breaks');
  }
  if (line.trim() === '') throw new UsageError('appendLog: a log entry must not be blank');
  const structure = scanPlan(text);
  const eol = dominantEol(text);
  return structure.logLine === -1 ? createLog(text, structure, line, eol) : insertIntoLog(text, structure, line, eol);
}

function insertIntoLog(text: string, structure: PlanStructure, line: string, eol: string): string {
  const { lines, headings, logLine } = structure;
  const end = headings.find((h) => h.line > logLine && h.level <= 2)?.line ?? lines.length;
  let last = end - 1;
  while (last > logLine && (lines[last]?.text.trim() ?? '') === '') last -= 1;
  const after = lines[last];
  if (after === undefined) throw new UsageError('appendLog: the Log heading vanished while editing');
  if (after.eol === '') {
    // The file ends on this line with no final newline; keep it that way.
    return `${text}${eol}${line}`;
  }
  const at = offsetOfLine(structure, text.length, last + 1);
  return `${text.slice(0, at)}${line}${eol}${text.slice(at)}`;
}

function createLog(text: string, structure: PlanStructure, line: string, eol: string): string {
  const section = `## Log${eol}${eol}${line}`;
  if (structure.foldLine < structure.lines.length) {
    const at = offsetOfLine(structure, text.length, structure.foldLine);
    return `${text.slice(0, at)}${section}${eol}${eol}${text.slice(at)}`;
  }
  if (text === '') return `${section}${eol}`;
  if (!/[\r\n]$/.test(text)) return `${text}${eol}${eol}${section}`;
  // Regex on the raw text would read the CR and LF of one CRLF as two line breaks; use the lines.
  const lastLine = structure.lines[structure.lines.length - 1];
  const blankBefore = lastLine !== undefined && lastLine.text.trim() === '' ? '' : eol;
  return `${text}${blankBefore}${section}${eol}`;
}
