import { ReadOnlyToolError } from './errors.js';
import { refuseCatastrophicRegex } from './regex-safety.js';
import type { WorkerHit } from './regex-worker-source.js';

/** How grep matches lines: a literal needle in this thread, or a vetted regular expression in a worker. */
export type LineMatcher =
  | { readonly kind: 'literal'; readonly needle: string; readonly ignoreCase: boolean }
  | { readonly kind: 'regex'; readonly source: string; readonly flags: string };

/**
 * Builds the matcher for a grep call, refusing a bad pattern before anything is read: an invalid
 * regular expression, or one whose shape can backtrack exponentially (see `refuseCatastrophicRegex`).
 */
export function lineMatcher(pattern: string, regex: boolean, ignoreCase: boolean): LineMatcher {
  if (!regex) return { kind: 'literal', needle: ignoreCase ? pattern.toLowerCase() : pattern, ignoreCase };
  const flags = ignoreCase ? 'i' : '';
  try {
    // Compiling only parses (V8 compiles lazily on first use), so this cannot hang.
    new RegExp(pattern, flags);
  } catch (error) {
    throw new ReadOnlyToolError(`The pattern is not a valid regular expression: ${error instanceof Error ? error.message : String(error)}.`, { cause: error });
  }
  refuseCatastrophicRegex(pattern, ignoreCase);
  return { kind: 'regex', source: pattern, flags };
}

/**
 * Literal search over one text, in linear time. Lines are split as the regex worker splits them, so
 * both kinds of search number lines alike.
 */
export function literalHits(text: string, needle: string, ignoreCase: boolean, limit: number, headChars: number): WorkerHit[] {
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  const hits: WorkerHit[] = [];
  for (let i = 0; i < lines.length && hits.length < limit; i += 1) {
    const line = lines[i] ?? '';
    if ((ignoreCase ? line.toLowerCase() : line).includes(needle)) hits.push({ line: i + 1, head: line.slice(0, headChars), length: line.length });
  }
  return hits;
}
