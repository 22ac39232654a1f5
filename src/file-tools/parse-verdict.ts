import { JudgeVerdictError } from './errors.js';

type JudgeVerdict = 'accept' | 'reject';

export interface ParsedVerdict {
  readonly verdict: JudgeVerdict;
  /** What the judge says is still needed; may be empty (always expected to be for an accept). */
  readonly missing: string;
}

/** Emphasis a model may wrap around a keyword: `**`, `__`, `*`, `_`. Backticks are not stripped from values, since paths are often quoted with them. */
const EMPHASIS = '[*_]{0,3}';
const VERDICT_LINE = new RegExp(`^${EMPHASIS}\\s*verdict\\s*${EMPHASIS}\\s*:\\s*${EMPHASIS}\\s*\`?([a-z]+)\`?\\s*${EMPHASIS}\\s*\\.?\\s*${EMPHASIS}$`, 'i');
/** Loose form, used only to count VERDICT lines anywhere in the answer. */
const ANY_VERDICT_LINE = new RegExp(`^${EMPHASIS}\\s*verdict\\s*${EMPHASIS}\\s*:`, 'i');
const MISSING_LINE = new RegExp(`^(${EMPHASIS})\\s*missing\\s*${EMPHASIS}\\s*:(.*)$`, 'i');

/**
 * Reads the judge's final two lines into a verdict.
 *
 * The rule is strict, matching what the judge prompt demands ("finish with exactly these two
 * lines and nothing after"):
 * - the last non-empty line is the `missing:` line, and the non-empty line right before it is the
 *   `VERDICT:` line; any text after the `missing:` line (a second paragraph, a bullet list, a
 *   closing code fence) is an error, because we cannot tell a continuation from an afterthought;
 * - exactly one line in the whole answer starts with `VERDICT:`; a second one (for example a
 *   draft verdict followed by a corrected one) is an error rather than a guess at which one counts;
 * - the verdict word is `accept` or `reject`; anything else (including the template's literal
 *   `accept | reject`) is an error.
 * Keywords and the verdict word are matched without regard to case, surrounding whitespace is
 * ignored, and markdown emphasis around the keywords is tolerated (`**VERDICT:** accept`,
 * `**missing**: tests`, `_VERDICT: reject_`). The `missing:` value is kept verbatim apart from
 * trimming and a closing emphasis marker; it may be empty, even for a reject, so that an otherwise
 * well-formed reject is never turned into a judge failure.
 *
 * @throws JudgeVerdictError when the answer breaks any of these rules; callers treat it as a
 *   judge failure.
 */
export function parseVerdict(text: string): ParsedVerdict {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const verdictLines = lines.filter((line) => ANY_VERDICT_LINE.test(line));
  if (verdictLines.length === 0) throw new JudgeVerdictError('The judge gave no "VERDICT:" line.', text);
  if (verdictLines.length > 1) {
    throw new JudgeVerdictError(`The judge gave ${verdictLines.length} "VERDICT:" lines; exactly one is allowed.`, text);
  }
  const lastMissing = findLastIndex(lines, (line) => MISSING_LINE.test(line));
  const verdictIndex = lines.indexOf(verdictLines[0] ?? '');
  if (lastMissing < verdictIndex) throw new JudgeVerdictError('The judge gave no "missing:" line after its VERDICT.', text);
  if (lastMissing !== lines.length - 1) {
    throw new JudgeVerdictError('The judge wrote text after its "missing:" line; the VERDICT and missing lines must end the answer.', text);
  }
  const verdictLine = lines[lines.length - 2] ?? '';
  if (!ANY_VERDICT_LINE.test(verdictLine)) {
    throw new JudgeVerdictError('The "VERDICT:" line must come right before the "missing:" line, at the end of the answer.', text);
  }
  const word = VERDICT_LINE.exec(verdictLine)?.[1]?.toLowerCase();
  if (word !== 'accept' && word !== 'reject') {
    throw new JudgeVerdictError(`The judge's verdict ${JSON.stringify(verdictLine)} is not "accept" or "reject".`, text);
  }
  return { verdict: word, missing: missingValue(lines[lines.length - 1] ?? '') };
}

function missingValue(line: string): string {
  const match = MISSING_LINE.exec(line);
  const opening = match?.[1] ?? '';
  let value = (match?.[2] ?? '').trim();
  // `**missing:** x` closes the emphasis right after the colon; `**missing: x**` closes it at the end.
  const closer = /^[*_]{1,3}(?=\s|$)/.exec(value)?.[0];
  if (closer !== undefined) value = value.slice(closer.length).trim();
  else if (opening !== '' && value.endsWith(opening)) value = value.slice(0, -opening.length).trim();
  return value;
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i -= 1) {
    const item = items[i];
    if (item !== undefined && predicate(item)) return i;
  }
  return -1;
}
