import { ReadOnlyToolError } from './errors.js';

/** One element of a parsed glob; a sequence of them is matched left to right. */
export type GlobToken =
  | { readonly kind: 'char'; readonly char: string }
  /** `?`: one character other than `/`. */
  | { readonly kind: 'any' }
  /** `[...]`: one character other than `/` that is (or with `!`/`^`, is not) in the ranges. */
  | { readonly kind: 'class'; readonly negate: boolean; readonly ranges: ReadonlyArray<readonly [number, number]> }
  /** `*`: any run of characters other than `/`. */
  | { readonly kind: 'star' }
  /** `**` not followed by `/`: any run of characters, `/` included. */
  | { readonly kind: 'globstar' }
  /** `**` followed by `/`: nothing, or any run of characters ending in `/` (zero or more directories). */
  | { readonly kind: 'dirs' }
  /** `{a,b}`: one of the alternatives. */
  | { readonly kind: 'alt'; readonly options: ReadonlyArray<readonly GlobToken[]> };

/** Longer globs are refused: no real file pattern needs more, and matching cost grows with length. */
const MAX_GLOB_CHARS = 1_000;

/**
 * Parses a glob. `*` and `?` stay inside one path segment, `**` spans segments, `[...]` is a
 * character class (ranges, `!` or `^` to negate; a `]` right after the opening bracket is a member),
 * `{a,b}` is an alternation (nestable; an unclosed brace runs to the end). A `[` without a closing
 * `]` and every other character match literally. A range that runs backwards (`[z-a]`) is an error.
 */
export function parseGlob(glob: string): readonly GlobToken[] {
  if (glob.length > MAX_GLOB_CHARS) throw new ReadOnlyToolError(`The glob is ${glob.length} characters long; at most ${MAX_GLOB_CHARS} are accepted.`);
  const parser = { glob, at: 0 };
  return parseSequence(parser, 0);
}

interface Parser {
  readonly glob: string;
  at: number;
}

function parseSequence(parser: Parser, braceDepth: number): GlobToken[] {
  const { glob } = parser;
  const tokens: GlobToken[] = [];
  while (parser.at < glob.length) {
    const char = glob[parser.at] ?? '';
    if (braceDepth > 0 && (char === ',' || char === '}')) return tokens;
    parser.at += 1;
    if (char === '*') {
      if (glob[parser.at] === '*') {
        const slashFollows = glob[parser.at + 1] === '/';
        parser.at += slashFollows ? 2 : 1;
        tokens.push({ kind: slashFollows ? 'dirs' : 'globstar' });
      } else tokens.push({ kind: 'star' });
    } else if (char === '?') tokens.push({ kind: 'any' });
    else if (char === '[') tokens.push(parseClass(parser));
    else if (char === '{') tokens.push(parseAlternation(parser, braceDepth + 1));
    else tokens.push({ kind: 'char', char });
  }
  return tokens;
}

function parseAlternation(parser: Parser, depth: number): GlobToken {
  const options: GlobToken[][] = [];
  for (;;) {
    options.push(parseSequence(parser, depth));
    const stop = parser.glob[parser.at];
    parser.at += 1;
    // `}` closes; the end of the glob closes an unclosed brace; `,` starts the next option.
    if (stop !== ',') return { kind: 'alt', options };
  }
}

/** Called just past `[`; returns a literal `[` when no `]` closes the class. */
function parseClass(parser: Parser): GlobToken {
  const { glob } = parser;
  const open = parser.at - 1;
  const close = glob.indexOf(']', open + 2);
  if (close === -1) return { kind: 'char', char: '[' };
  let body = glob.slice(open + 1, close);
  const negate = body.startsWith('!') || body.startsWith('^');
  if (negate) body = body.slice(1);
  const ranges: Array<readonly [number, number]> = [];
  for (let i = 0; i < body.length; i += 1) {
    const low = body.charCodeAt(i);
    if (body[i + 1] === '-' && i + 2 < body.length) {
      const high = body.charCodeAt(i + 2);
      if (high < low) {
        throw new ReadOnlyToolError(`The glob's character class "[${glob.slice(open + 1, close)}]" has a range that runs backwards (${body.slice(i, i + 3)}).`);
      }
      ranges.push([low, high]);
      i += 2;
    } else ranges.push([low, low]);
  }
  parser.at = close + 1;
  return { kind: 'class', negate, ranges };
}
