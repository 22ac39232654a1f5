import type { RunComparison } from './run-comparison.js';

/**
 * The comparison in one line, b against a: `same outcome (completed), 1 node changed, same goals
 * signed off, 18% fewer tokens, score 0.82 → 0.91`. Parts with nothing to say are left out.
 */
export function comparisonSummary(c: Omit<RunComparison, 'summary'>): string {
  const parts = [c.a.status === c.b.status ? `same outcome (${c.a.status})` : `outcome ${c.a.status} → ${c.b.status}`];
  const nodes = (['changed', 'added', 'missing'] as const).filter((change) => c.counts[change] > 0).map((change) => `${c.counts[change]} ${change}`);
  parts.push(nodes.length === 0 ? 'no node changed' : `nodes: ${nodes.join(', ')}`);
  if (c.sameGoalsSignedOff === true) parts.push('same goals signed off');
  if (c.sameGoalsSignedOff === false) parts.push(`other goals signed off (${c.a.signedOff.length} → ${c.b.signedOff.length})`);
  parts.push(tokens(c.a.tokens, c.b.tokens));
  if (c.a.score !== null || c.b.score !== null) parts.push(`score ${score(c.a.score)} → ${score(c.b.score)}`);
  return parts.join(', ');
}

function tokens(a: number, b: number): string {
  if (a === b) return 'same tokens';
  if (a === 0) return `${b} more tokens`;
  const percent = Math.round((Math.abs(b - a) / a) * 100);
  return `${percent === 0 ? '<1' : percent}% ${b < a ? 'fewer' : 'more'} tokens`;
}

function score(value: number | null): string {
  return value === null ? '-' : value.toFixed(2);
}
