import { ReadOnlyToolError } from './errors.js';

/** Longer regular expressions are refused; a search pattern never needs more. */
const MAX_REGEX_CHARS = 1_000;

/** What a group holds, gathered while scanning it. */
interface Group {
  /** A quantifier somewhere inside (at any depth), and whether one of them is unbounded (`*`, `+`, `{n,}`). */
  hasQuantifier: boolean;
  hasUnbounded: boolean;
  /** The first character of each alternative, or null when it is not one plain literal. */
  firsts: Array<string | null>;
  /** True until the current alternative's first atom has been seen. */
  atAlternativeStart: boolean;
}

interface Quantifier {
  readonly length: number;
  readonly min: number;
  readonly max: number;
}

/**
 * Refuses regular expressions whose backtracking can take exponential time, before any text is
 * matched. JavaScript has no linear-time RegExp engine, so the shapes that cause it are found by a
 * scan of the source (a conservative one: it may refuse a pattern that would have been fine):
 * - a backreference (`\1`, `\k<name>`);
 * - a group with a quantifier inside, repeated without bound (`(a+)+`, `(a*)*`, `(?:ab?)+`), or
 *   repeated at all when the inner quantifier is unbounded (`(a+){9}`);
 * - a repeated alternation whose alternatives can start alike (`(a|a)*`, `(a|ab)+`, `(\w|\d)*`).
 * Patterns it lets through can still be slow (`a*a*a*b` is polynomial), which is why the search
 * also runs under a time budget in a worker that is stopped when the budget runs out.
 *
 * @throws ReadOnlyToolError naming the shape and how to rewrite it.
 */
export function refuseCatastrophicRegex(source: string, ignoreCase: boolean): void {
  if (source.length > MAX_REGEX_CHARS) {
    throw new ReadOnlyToolError(`The regular expression is ${source.length} characters long; at most ${MAX_REGEX_CHARS} are accepted.`);
  }
  const stack: Group[] = [newGroup()];
  // What a quantifier right here would apply to: a closed group, or an atom (and whether that atom
  // opened its alternative, since making it optional voids the alternative's literal first character).
  let last: { group: Group | null; opensAlternative: boolean } | undefined;
  const top = (): Group => stack[stack.length - 1] ?? newGroup();
  const atom = (literal: string | null): void => {
    const group = top();
    const opensAlternative = group.atAlternativeStart;
    if (opensAlternative) {
      group.firsts[group.firsts.length - 1] = literal === null ? null : ignoreCase ? literal.toLowerCase() : literal;
      group.atAlternativeStart = false;
    }
    last = { group: null, opensAlternative };
  };
  for (let i = 0; i < source.length; i += 1) {
    const char = source[i] ?? '';
    const quantifier = quantifierAt(source, i);
    if (quantifier !== undefined) {
      applyQuantifier(top(), last, quantifier, source);
      last = undefined;
      i += quantifier.length - 1;
      // A lazy or possessive-looking suffix changes nothing about the shape.
      if (source[i + 1] === '?') i += 1;
      continue;
    }
    if (char === '\\') {
      const next = source[i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && source[i + 2] === '<')) {
        throw new ReadOnlyToolError('Backreferences (\\1, \\k<name>) are refused in grep patterns: they make matching take exponential time. Search for the text without the backreference.');
      }
      atom(/[dDwWsSbBpPuxc0]/.test(next) ? null : next === 'n' ? '\n' : next === 't' ? '\t' : next);
      i += 1;
    } else if (char === '[') {
      i = classEnd(source, i);
      atom(null);
    } else if (char === '(') {
      atom(null);
      const group = newGroup();
      stack.push(group);
      i += groupPrefixLength(source, i);
    } else if (char === ')') {
      if (stack.length === 1) continue; // the RegExp constructor has already reported this
      const closed = stack.pop() ?? newGroup();
      const parent = top();
      parent.hasQuantifier ||= closed.hasQuantifier;
      parent.hasUnbounded ||= closed.hasUnbounded;
      last = { group: closed, opensAlternative: false };
    } else if (char === '|') {
      const group = top();
      group.firsts.push(null);
      group.atAlternativeStart = true;
      last = undefined;
    } else if (char === '^' || char === '$') {
      last = undefined;
    } else atom(char === '.' ? null : char);
  }
}

function newGroup(): Group {
  return { hasQuantifier: false, hasUnbounded: false, firsts: [null], atAlternativeStart: true };
}

function applyQuantifier(
  current: Group,
  target: { group: Group | null; opensAlternative: boolean } | undefined,
  quantifier: Quantifier,
  source: string,
): void {
  const repeats = quantifier.max > 1;
  const unbounded = quantifier.max === Infinity;
  const quantified = target?.group ?? null;
  if (quantified !== null) {
    // Bounded repeats of bounded content stay polynomial with a small degree: (?:\d{1,3}\.){3} is fine.
    if ((unbounded && quantified.hasQuantifier) || (repeats && quantified.hasUnbounded)) {
      throw new ReadOnlyToolError(
        `The regular expression ${JSON.stringify(source)} repeats a group that has a quantifier inside (like (a+)+): matching it can take exponential time. Use one quantifier, e.g. (a+)+ → a+.`,
      );
    }
    if (repeats && quantified.firsts.length > 1 && !distinctLiterals(quantified.firsts)) {
      throw new ReadOnlyToolError(
        `The regular expression ${JSON.stringify(source)} repeats an alternation whose alternatives can start with the same character (like (a|ab)*): matching it can take exponential time. Give each alternative a distinct literal first character, or use a character class.`,
      );
    }
  }
  // An optional first atom lets the alternative start with whatever follows, so it has no one literal first character.
  if (quantifier.min === 0 && target?.opensAlternative === true) current.firsts[current.firsts.length - 1] = null;
  current.hasQuantifier = true;
  current.hasUnbounded ||= unbounded;
}

function distinctLiterals(firsts: ReadonlyArray<string | null>): boolean {
  const seen = new Set<string>();
  for (const first of firsts) {
    if (first === null || seen.has(first)) return false;
    seen.add(first);
  }
  return true;
}

/** The quantifier starting at `i`, if any: `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` (other braces are literal). */
function quantifierAt(source: string, i: number): Quantifier | undefined {
  const char = source[i];
  if (char === '*') return { length: 1, min: 0, max: Infinity };
  if (char === '+') return { length: 1, min: 1, max: Infinity };
  if (char === '?') return { length: 1, min: 0, max: 1 };
  if (char !== '{') return undefined;
  const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i, i + 32));
  if (match === null) return undefined;
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
  return { length: match[0].length, min, max };
}

/** Index of the `]` closing the class that opens at `i` (escapes skipped; `[]` is an empty class in JavaScript). */
function classEnd(source: string, i: number): number {
  let j = i + 1;
  if (source[j] === '^') j += 1;
  for (; j < source.length; j += 1) {
    if (source[j] === '\\') j += 1;
    else if (source[j] === ']') return j;
  }
  return source.length;
}

/** Length of `?:`, `?=`, `?!`, `?<=`, `?<!` or `?<name>` after an opening parenthesis. */
function groupPrefixLength(source: string, i: number): number {
  if (source[i + 1] !== '?') return 0;
  const rest = source.slice(i + 1, i + 64);
  const named = /^\?<[A-Za-z_$][\w$]*>/.exec(rest);
  if (named !== null) return named[0].length;
  if (rest.startsWith('?<=') || rest.startsWith('?<!')) return 3;
  return 2;
}
