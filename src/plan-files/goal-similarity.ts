/**
 * Goal text normalised for comparison: Unicode-compatible forms folded, case folded, punctuation
 * and markdown marks turned into spaces, whitespace collapsed. Letters and digits of any script stay.
 */
export function normaliseGoalText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/^\s*goal:\s*/, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The set of words of a goal text, each with a plural `s` dropped so `test`/`tests` agree. */
function goalTokens(text: string): Set<string> {
  const words = normaliseGoalText(text).split(' ').filter((w) => w !== '');
  return new Set(words.map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w)));
}

/**
 * Token-set similarity (Dice coefficient) in 0..1: word order, case, punctuation and spacing do
 * not count; each changed, added or dropped word lowers the score a little.
 */
export function goalSimilarity(a: string, b: string): number {
  const left = goalTokens(a);
  const right = goalTokens(b);
  if (left.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const word of left) if (right.has(word)) shared += 1;
  return (2 * shared) / (left.size + right.size);
}
