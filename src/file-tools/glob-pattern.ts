import { parseGlob, type GlobToken } from './glob-parse.js';
import { RowPool } from './row-pool.js';

/** True when `pattern` uses glob syntax rather than being a plain name fragment. */
export function isGlob(pattern: string): boolean {
  return /[*?[{]/.test(pattern);
}

const SLASH = 0x2f;

/** What one match works on: the text's character codes, its length, and the rows it may use. */
interface Scratch {
  codes: Uint16Array;
  n: number;
  readonly rows: RowPool;
}

/**
 * Compiles a glob (syntax in `parseGlob`) into a whole-string matcher over `/`-separated paths.
 *
 * No RegExp is built: a translated glob such as `*a*a*a*…` backtracks exponentially in a
 * backtracking engine. The matcher instead walks the tokens once, keeping the set of text positions
 * the pattern so far can end at (a row of flags), so a match costs at most
 * (tokens × text length) steps whatever the input. Each alternative of a `{a,b}` is walked once.
 * Rows come from a pool kept with the matcher, so matching thousands of paths allocates nothing
 * per path (many small buffers would otherwise cost long garbage-collection pauses).
 *
 * @throws ReadOnlyToolError for an invalid glob (a backwards range) or an overlong one.
 */
export function compileGlob(glob: string): (text: string) => boolean {
  const tokens = parseGlob(glob);
  const scratch: Scratch = { codes: new Uint16Array(256), n: 0, rows: new RowPool() };
  return (text) => {
    const n = text.length;
    if (scratch.codes.length < n) scratch.codes = new Uint16Array(n * 2);
    for (let j = 0; j < n; j += 1) scratch.codes[j] = text.charCodeAt(j);
    scratch.n = n;
    scratch.rows.reset(n + 1);
    const start = scratch.rows.take();
    start[0] = 1;
    return advance(tokens, start, scratch)[n] === 1;
  };
}

/**
 * Given the positions `from` where matching may continue, returns where it may continue after
 * `tokens`. Uses two rows from the pool, alternately; the caller reads the result before giving
 * the rows back.
 */
function advance(tokens: readonly GlobToken[], from: Uint8Array, scratch: Scratch): Uint8Array {
  const { rows, n } = scratch;
  const a = rows.take();
  const b = rows.take();
  let row = from;
  for (const token of tokens) {
    const first = row.indexOf(1);
    if (first === -1 || first > n) return row;
    const next = row === a ? b : a;
    next.fill(0, 0, n + 1);
    step(token, row, next, first, scratch);
    row = next;
  }
  return row;
}

/** Fills `next` (zeroed) from `row`, whose first set position is `first`. */
function step(token: GlobToken, row: Uint8Array, next: Uint8Array, first: number, scratch: Scratch): void {
  const { codes, n, rows } = scratch;
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
      next.fill(1, first, n + 1);
      return;
    case 'dirs':
      // Either nothing, or a run that starts where the pattern could stand and ends with `/`.
      next[first] = 1;
      for (let j = first + 1; j <= n; j += 1) next[j] = row[j] === 1 || codes[j - 1] === SLASH ? 1 : 0;
      return;
    case 'alt':
      for (const option of token.options) {
        const mark = rows.mark();
        const reached = advance(option, row, scratch);
        for (let j = first; j <= n; j += 1) if (reached[j] === 1) next[j] = 1;
        rows.release(mark);
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
