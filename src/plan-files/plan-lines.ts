/** One physical line of a plan file, with the exact line ending it had (so edits can splice bytes). */
export interface PlanLine {
  /** The line's text without its line ending. */
  readonly text: string;
  /** `'\r\n'`, `'\n'`, `'\r'`, or `''` for a last line with no final newline. */
  readonly eol: string;
  /** Offset of the line's first character in the whole text. */
  readonly start: number;
}

const LINE = /([^\r\n]*)(\r\n|\n|\r|$)/y;

/**
 * Splits `text` into lines, keeping each line ending as it was. Joining `text + eol` of every line
 * gives back `text` exactly, which is what lets every edit leave the rest of the file untouched.
 */
export function splitPlanLines(text: string): PlanLine[] {
  const lines: PlanLine[] = [];
  LINE.lastIndex = 0;
  while (LINE.lastIndex < text.length) {
    const start = LINE.lastIndex;
    const match = LINE.exec(text);
    if (match === null) break;
    lines.push({ text: match[1] ?? '', eol: match[2] ?? '', start });
  }
  return lines;
}

/**
 * The line ending new lines should use: the first one the file already uses, so an edited CRLF file
 * stays CRLF. A file with no line ending at all gets `'\n'`.
 */
export function dominantEol(text: string): string {
  const match = /\r\n|\n|\r/.exec(text);
  return match === null ? '\n' : match[0];
}
