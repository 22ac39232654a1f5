import { parseGlob, type GlobToken } from './glob-parse.js';

/** True when `pattern` uses glob syntax rather than being a plain name fragment. */
export function isGlob(pattern: string): boolean {
  return /[*?[{]/.test(pattern);
}

const SLASH = 0x2f;

/**
 * Compiles a glob (syntax in `parseGlob`) into a whole-string matcher over `/`-separated paths.
 *
 * No RegExp is built: a translated glob such as `*a*a*a*…` backtracks exponentially in a
 * backtracking engine. The matcher instead walks the tokens once, keeping the set of text positions
 * the pattern so far can end at (a row of flags), so a match costs at most
 * (tokens × text length) steps whatever the input. Each alternative of a `{a,b}` is walked once.
 *
 * @throws ReadOnlyToolError for an invalid glob (a backwards range) or an overlong one.
 */
export function compileGlob(glob: string): (text: string) => boolean {
  const tokens = parseGlob(glob);
  return (text) => {
    const codes = new Uint16Array(text.length);
    for (let j = 0; j < text.length; j += 1) codes[j] = text.charCodeAt(j);
    const start = new Uint8Array(text.length + 1);
    start[0] = 1;
    return advance(tokens, start, codes)[text.length] === 1;
  };
}

/**
 * Given the positions `from` where matching may continue, returns where it may continue after
 * `tokens`. Two rows are reused for the whole sequence; only an alternation allocates its own.
 */
function advance(tokens: readonly GlobToken[], from: Uint8Array, codes: Uint16Array): Uint8Array {
  let row: Uint8Array = from;
  let spare: Uint8Array = new Uint8Array(from.length);
  for (const token of tokens) {
    const first = row.indexOf(1);
    if (first === -1) return row;
    const next = spare === from ? new Uint8Array(from.length) : spare;
    next.fill(0);
    step(token, row, next, first, codes);
    spare = row;
    row = next;
  }
  return row;
}

/** Fills `next` (all zeros) from `row`, whose first set position is `first`. */
function step(token: GlobToken, row: Uint8Array, next: Uint8Array, first: number, codes: Uint16Array): void {
  const n = codes.length;
  switch (token.kind) {
    case 'char':
    case 'any':
    case 'class':
      for (let j = first; j < n; j += 1) if (row[j] === 1 && matchesOne(token, codes[j] ?? 0)) next[j + 1] = 1;
      return;
    case 'star':
      next[first] = 1;
      for (let j = first + 1; j <= n; j += 1) next[j] = row[j] === 1 || (next[j - 1] === 1 && codes[j - 1] !== SLASH) ? 1 : 0;
      return;
    case 'globstar':
      next.fill(1, first);
      return;
    case 'dirs':
      // Either nothing, or a run that starts where the pattern could stand and ends with `/`.
      next[first] = 1;
      for (let j = first + 1; j <= n; j += 1) next[j] = row[j] === 1 || codes[j - 1] === SLASH ? 1 : 0;
      return;
    case 'alt':
      for (const option of token.options) {
        const reached = advance(option, row, codes);
        for (let j = first; j <= n; j += 1) if (reached[j] === 1) next[j] = 1;
      }
      return;
  }
}
function matchesOne(token: GlobToken, code: number): boolean {
  if (token.kind === 'char') return token.char.charCodeAt(0) === code;
  // `?` and classes stay within one path segment.
  if (code === SLASH) return false;
  if (token.kind === 'any') return true;
  if (token.kind !== 'class') return false;
  const inRanges = token.ranges.some(([low, high]) => code >= low && code <= high);
  return inRanges !== token.negate;
}
