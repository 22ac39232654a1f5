import { inertText } from '../../util/inert-text.js';
import type { NodeComparison, RunComparison, RunTotals } from './run-comparison.js';

/**
 * A comparison as a table a person reads in a terminal: the summary line, one row per node (its
 * change, outcome, tokens, cost, duration and score, a → b), the totals, then the answer diffs.
 * Stored names are escaped, so each stays on its line.
 */
export function formatComparison(c: RunComparison): string {
  const header = ['node', 'change', 'outcome', 'tokens', 'cost', 'ms', 'score', 'sign-offs'];
  const rows = c.nodes.map((node) => [
    inertText(node.path),
    node.change,
    pair(node.a?.status, node.b?.status),
    pair(node.a?.tokens, node.b?.tokens),
    pair(money(node.a?.costUsd), money(node.b?.costUsd)),
    pair(ms(node.a?.durationMs), ms(node.b?.durationMs)),
    pair(score(node.scoreA), score(node.scoreB)),
    pair(signOffs(node, 'a'), signOffs(node, 'b')),
  ]);
  rows.push([
    'total',
    `${c.nodes.length - c.counts.same} of ${c.nodes.length} differ`,
    pair(c.a.status, c.b.status),
    pair(c.a.tokens, c.b.tokens),
    pair(money(c.a.costUsd), money(c.b.costUsd)),
    pair(ms(c.a.durationMs), ms(c.b.durationMs)),
    pair(score(c.a.score ?? undefined), score(c.b.score ?? undefined)),
    pair(goals(c.a), goals(c.b)),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  const out = [`${run(c.a)} → ${run(c.b)}`, c.summary, '', line(header), ...rows.map(line)];
  out.push('', `nodes by outcome: ${outcomes(c.a)} → ${outcomes(c.b)}`);
  if (c.unmatchedScorers.length > 0) out.push(`scorers that matched no node: ${c.unmatchedScorers.map((p) => inertText(p)).join(', ')}`);
  // A step's value is often its agent call's answer: one diff, headed by every node it belongs to.
  const diffs = new Map<string, string[]>();
  for (const node of c.nodes) if (node.answerDiff !== undefined) diffs.set(node.answerDiff, [...(diffs.get(node.answerDiff) ?? []), inertText(node.path)]);
  for (const [diff, paths] of diffs) {
    out.push('', `answer of ${paths.join(', ')} (- a, + b):`, ...diff.split('\n').map((l) => `  ${inertText(l)}`));
  }
  return out.join('\n');
}

function run(totals: RunTotals): string {
  return `run ${inertText(totals.runId)} (${inertText(totals.rootName)}, ${totals.status})`;
}

/** `a → b`, or one value when both are the same; `-` for a side without one. */
function pair(a: string | number | undefined, b: string | number | undefined): string {
  const left = a === undefined ? '-' : String(a);
  const right = b === undefined ? '-' : String(b);
  return left === right ? left : `${left} → ${right}`;
}

function money(usd: number | null | undefined): string | undefined {
  return usd === null || usd === undefined ? undefined : `$${usd.toFixed(4)}`;
}

function ms(duration: number | null | undefined): string | undefined {
  return duration === null || duration === undefined ? undefined : String(Math.round(duration));
}

function score(value: number | undefined): string | undefined {
  return value === undefined ? undefined : value.toFixed(2);
}

function signOffs(node: NodeComparison, side: 'a' | 'b'): string | undefined {
  const list = node[side]?.signOffs ?? [];
  return list.length === 0 ? undefined : `${list.filter((s) => s.verdict === 'accept').length}/${list.length}`;
}

/** Goals signed off of those judged, like a node's `accepted/total`. */
function goals(totals: RunTotals): string | undefined {
  const judged = totals.signedOff.length + totals.refused.length;
  return judged === 0 ? undefined : `${totals.signedOff.length}/${judged}`;
}

function outcomes(totals: RunTotals): string {
  return Object.entries(totals.byOutcome)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
}
