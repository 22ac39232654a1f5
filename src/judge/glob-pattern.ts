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
 * the pattern so far can end at (a row of booleans), so a match costs at most
 * (tokens × text length) steps whatever the input. Each alternative of a `{a,b}` is walked once.
 *
 * @throws ReadOnlyToolError for an invalid glob (a backwards range) or an overlong one.
 */
export function compileGlob(glob: string): (text: string) => boolean {
  const tokens = parseGlob(glob);
  return (text) => {
    const start = new Uint8Array(text.length + 1);
    start[0] = 1;
    return advance(tokens, start, text)[text.length] === 1;
  };
}

/** Given the positions `from` where matching may continue, returns where it may continue after `tokens`. */
function advance(tokens: readonly GlobToken[], from: Uint8Array, text: string): Uint8Array {
  let row = from;
  for (const token of tokens) {
    if (!row.includes(1)) return row;
    row = step(token, row, text);
  }
  return row;
}

function step(token: GlobToken, row: Uint8Array, text: string): Uint8Array {
  const n = text.length;
  const next = new Uint8Array(n + 1);
  switch (token.kind) {
    case 'char':
    case 'any':
    case 'class':
      for (let j = 0; j < n; j += 1) if (row[j] === 1 && matchesOne(token, text.charCodeAt(j))) next[j + 1] = 1;
      return next;
    case 'star':
      for (let j = 0; j <= n; j += 1) next[j] = row[j] === 1 || (j > 0 && next[j - 1] === 1 && text.charCodeAt(j - 1) !== SLASH) ? 1 : 0;
      return next;
    case 'globstar':
      for (let j = 0; j <= n; j += 1) next[j] = row[j] === 1 || (j > 0 && next[j - 1] === 1) ? 1 : 0;
      return next;
    case 'dirs': {
      // Either nothing, or a run that starts where the pattern could stand and ends with `/`.
      let reachable = false;
      for (let j = 0; j <= n; j += 1) {
        next[j] = row[j] === 1 || (reachable && text.charCodeAt(j - 1) === SLASH) ? 1 : 0;
        if (row[j] === 1) reachable = true;
      }
      return next;
    }
    case 'alt':
      for (const option of token.options) {
        const reached = advance(option, row, text);
        for (let j = 0; j <= n; j += 1) if (reached[j] === 1) next[j] = 1;
      }
      return next;
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
