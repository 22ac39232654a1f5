import { UsageError } from '../errors/groundswell-error.js';
import { dominantEol } from './plan-lines.js';
import { offsetOfLine, scanPlan } from './plan-structure.js';

export interface WorkingSetOptions {
  /**
   * Upper bound on the returned length, truncation marker included. A plan re-sent to a model on
   * every reminder must not grow the prompt without limit, whatever the working agent wrote.
   */
  readonly maxChars?: number;
}

/** Text that ends a cut working set, so the reader knows the rest exists and where to find it. */
function workingSetTruncationMarker(omitted: number): string {
  return `[working set truncated: ${omitted} more characters above the fold; read the plan file for the rest]`;
}

/**
 * The working set: the plan text above the fold (`## Log`, see `parsePlan`), exactly as written.
 * With `maxChars`, a longer working set is cut at the last line break that fits and ends with the
 * truncation marker on its own line.
 */
export function workingSet(text: string, options: WorkingSetOptions = {}): string {
  const structure = scanPlan(text);
  const above = text.slice(0, offsetOfLine(structure, text.length, structure.foldLine));
  const { maxChars } = options;
  if (maxChars === undefined || above.length <= maxChars) return above;
  if (!Number.isInteger(maxChars) || maxChars < 0) {
    throw new UsageError(`workingSet: maxChars must be a non-negative integer, got ${String(maxChars)}`);
  }
  const eol = dominantEol(text);
  // Sized for the largest possible count, so the final marker never makes the result overflow.
  const budget = maxChars - eol.length - workingSetTruncationMarker(above.length).length;
  if (budget < 0) {
    throw new UsageError(
      `workingSet: maxChars ${maxChars} is too small to hold the truncation marker; allow at least ${maxChars - budget}`,
    );
  }
  let cut = budget;
  const lastBreak = Math.max(above.lastIndexOf('\n', cut - 1), above.lastIndexOf('\r', cut - 1));
  if (lastBreak >= 0) cut = lastBreak + 1;
  // Never split a surrogate pair: half an emoji is not text.
  else if (cut > 0 && isHighSurrogate(above.charCodeAt(cut - 1))) cut -= 1;
  // A CRLF cut after the CR would leave a lone CR; keep the pair together.
  if (above[cut - 1] === '\r' && above[cut] === '\n') cut += cut < budget ? 1 : -1;
  const head = above.slice(0, cut);
  const separator = head === '' || /[\r\n]$/.test(head) ? '' : eol;
  return `${head}${separator}${workingSetTruncationMarker(above.length - cut)}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
