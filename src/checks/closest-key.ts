/**
 * The known key a misspelt one most likely meant ("maxToken" -> "maxTokens", "retries" -> "retry"),
 * or undefined when none is close: the nearest by edit distance (case-insensitive), else the one
 * sharing the longest start. Keys are few and short, so the quadratic cost is nothing.
 */
export function closestKey(unknown: string, known: readonly string[]): string | undefined {
  return nearestByEdits(unknown.toLowerCase(), known) ?? longestSharedStart(unknown.toLowerCase(), known);
}

function nearestByEdits(target: string, known: readonly string[]): string | undefined {
  const limit = Math.max(2, Math.floor(target.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const key of known) {
    const distance = editDistance(target, key.toLowerCase());
    if (distance < bestDistance) {
      best = key;
      bestDistance = distance;
    }
  }
  return best;
}

// At least 4 characters and more than half of the shorter key, so "max" alone suggests nothing.
function longestSharedStart(target: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestLength = 0;
  for (const key of known) {
    const lower = key.toLowerCase();
    let n = 0;
    while (n < target.length && n < lower.length && target[n] === lower[n]) n += 1;
    if (n >= 4 && n * 2 > Math.min(target.length, lower.length) && n > bestLength) {
      best = key;
      bestLength = n;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 8) return Number.POSITIVE_INFINITY;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? Number.POSITIVE_INFINITY;
}
