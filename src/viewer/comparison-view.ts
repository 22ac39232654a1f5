// The compare page's rows from a run comparison (`viewer.showComparison`).
import type { RunComparison, RunTotals } from '../durable/replay/run-comparison.js';
import type { RunNode } from '../durable/replay/run-nodes.js';
import type { CompareSide, CompareTotals, ComparisonView } from './compare-messages.js';

const SEPARATOR = ' \u203A ';

/** The page's view of `comparison`. */
export function comparisonView(comparison: RunComparison): ComparisonView {
  return {
    summary: comparison.summary,
    a: totals(comparison.a),
    b: totals(comparison.b),
    counts: comparison.counts,
    rows: comparison.nodes.map((node) => {
      const { label, depth } = placeOf(node.path, (node.b ?? node.a)?.name);
      return {
        path: node.path,
        label,
        depth,
        kind: node.kind,
        change: node.change,
        a: side(node.a),
        b: side(node.b),
        outcomeChanged: node.outcomeChanged,
        answerChanged: node.answerChanged,
        answerDiff: node.answerDiff ?? null,
        tokensDelta: node.tokensDelta,
        costDelta: node.costDelta,
        durationDelta: node.durationDelta,
        signOffsChanged: node.signOffsChanged,
        scoreA: node.scoreA ?? null,
        scoreB: node.scoreB ?? null,
      };
    }),
  };
}

/**
 * The row's label (the path's last name, with its occurrence) and depth. Found from the node's own
 * name where the path ends with it, so a name with ` › ` in it stays one label; an agent call's
 * path names its agent, so there the last separator splits.
 */
function placeOf(path: string, name: string | undefined): { label: string; depth: number } {
  if (name !== undefined && (path === name || path.startsWith(`${name}#`))) return { label: path, depth: 0 };
  const at = name === undefined || name === '' ? -1 : path.lastIndexOf(SEPARATOR + name);
  const cut = at >= 0 ? at : path.lastIndexOf(SEPARATOR);
  if (cut < 0) return { label: path, depth: 0 };
  return { label: path.slice(cut + SEPARATOR.length), depth: path.slice(0, cut).split(SEPARATOR).length };
}

function side(node: RunNode | undefined): CompareSide | null {
  if (node === undefined) return null;
  return { name: node.name, status: node.status, tokens: node.tokens, costUsd: node.costUsd, durationMs: node.durationMs };
}

function totals(run: RunTotals): CompareTotals {
  return { runId: run.runId, rootName: run.rootName, status: run.status, tokens: run.tokens, costUsd: run.costUsd, durationMs: run.durationMs, nodes: run.nodes, score: run.score };
}
