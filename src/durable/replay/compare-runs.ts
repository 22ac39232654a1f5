import { lineDiff } from '../../util/line-diff.js';
import { totalTokens } from '../../util/usage.js';
import type { TrajectoryAssessment } from '../../types/trajectory.js';
import type { WorkflowStatus } from '../../types/status.js';
import { comparisonSummary } from './comparison-summary.js';
import { checkRecording, readRecording, type Recording } from './recording.js';
import type { NodeChange, NodeComparison, RunComparison, RunTotals } from './run-comparison.js';
import { runNodes, type RunNode } from './run-nodes.js';
import { mean, scoreNodes, type RunScores, type Scorers } from './score-run.js';

export interface CompareOptions {
  /** Scorers by node path, run on both runs' nodes (see `scoreRun`). */
  readonly scorers?: Scorers;
}

/**
 * Compares two recorded runs node by node, matched by path: outcome, answer (with a line diff),
 * tokens, cost, duration, the judge's sign-offs and trajectory assessments, scores, and which
 * nodes one run has and the other lacks; with totals. `a` is the baseline, `b` the run measured
 * against it. Both (recordings or file paths) are only read.
 */
export async function compareRuns(a: Recording | string, b: Recording | string, options: CompareOptions = {}): Promise<RunComparison> {
  const [left, right] = await Promise.all([load(a), load(b)]);
  const nodesA = runNodes(left);
  const nodesB = runNodes(right);
  const empty: RunScores = { scores: [], total: null, unmatched: [] };
  const scoresA = options.scorers === undefined ? empty : await scoreNodes(left, nodesA, options.scorers);
  const scoresB = options.scorers === undefined ? empty : await scoreNodes(right, nodesB, options.scorers);
  const byPathB = new Map(nodesB.map((node) => [node.path, node]));
  const pathsA = new Set(nodesA.map((node) => node.path));
  const scoreA = nodeScores(scoresA);
  const scoreB = nodeScores(scoresB);
  const compare = (nodeA: RunNode | undefined, nodeB: RunNode | undefined): NodeComparison => compareNode(nodeA, nodeB, scoreA, scoreB);

  // b's added nodes go after the node that precedes them in b, so a new step shows where it ran.
  const after = new Map<string | null, RunNode[]>();
  nodesB.forEach((node, i) => {
    if (pathsA.has(node.path)) return;
    const previous = i === 0 ? null : (nodesB[i - 1] as RunNode).path;
    after.set(previous, [...(after.get(previous) ?? []), node]);
  });
  const nodes: NodeComparison[] = [];
  const placeAfter = (path: string | null): void => {
    for (const added of after.get(path) ?? []) {
      nodes.push(compare(undefined, added));
      placeAfter(added.path);
    }
  };
  placeAfter(null);
  for (const node of nodesA) {
    nodes.push(compare(node, byPathB.get(node.path)));
    placeAfter(node.path);
  }

  const counts: Record<NodeChange, number> = { same: 0, changed: 0, added: 0, missing: 0 };
  for (const node of nodes) counts[node.change] += 1;
  const totalsA = totals(left, nodesA, scoresA);
  const totalsB = totals(right, nodesB, scoresB);
  const signedOff = totalsA.signedOff.length + totalsA.refused.length + totalsB.signedOff.length + totalsB.refused.length > 0;
  const sameGoalsSignedOff = signedOff ? JSON.stringify(totalsA.signedOff) === JSON.stringify(totalsB.signedOff) : null;
  const unmatchedScorers = scoresA.unmatched.filter((path) => scoresB.unmatched.includes(path));
  const comparison = { a: totalsA, b: totalsB, nodes, counts, sameGoalsSignedOff, unmatchedScorers };
  return { ...comparison, summary: comparisonSummary(comparison) };
}

async function load(recording: Recording | string): Promise<Recording> {
  return typeof recording === 'string' ? readRecording(recording) : checkRecording(recording);
}

/** Each node's score: the mean when several scorers matched it. */
function nodeScores(scores: RunScores): Map<string, number> {
  const byPath = new Map<string, number[]>();
  for (const { path, score } of scores.scores) byPath.set(path, [...(byPath.get(path) ?? []), score]);
  return new Map([...byPath].map(([path, list]) => [path, mean(list) as number]));
}

function compareNode(a: RunNode | undefined, b: RunNode | undefined, scoresA: Map<string, number>, scoresB: Map<string, number>): NodeComparison {
  const node = (a ?? b) as RunNode;
  const answerA = a === undefined ? undefined : json(a.answer);
  const answerB = b === undefined ? undefined : json(b.answer);
  const both = a !== undefined && b !== undefined;
  const outcomeChanged = both && a.status !== b.status;
  const answerChanged = both && answerA !== answerB;
  const signOffsChanged = both && JSON.stringify(a.signOffs) !== JSON.stringify(b.signOffs);
  const assessmentsChanged = both && JSON.stringify(a.assessments) !== JSON.stringify(b.assessments);
  const scoreA = a === undefined ? undefined : scoresA.get(a.path);
  const scoreB = b === undefined ? undefined : scoresB.get(b.path);
  const tokensDelta = (b?.tokens ?? 0) - (a?.tokens ?? 0);
  const changed = outcomeChanged || answerChanged || signOffsChanged || assessmentsChanged || tokensDelta !== 0 || scoreA !== scoreB;
  return {
    path: node.path,
    kind: node.kind,
    change: a === undefined ? 'added' : b === undefined ? 'missing' : changed ? 'changed' : 'same',
    ...(a !== undefined ? { a } : {}),
    ...(b !== undefined ? { b } : {}),
    outcomeChanged,
    answerChanged,
    ...(answerChanged ? { answerDiff: lineDiff(answerA ?? '', answerB ?? '') } : {}),
    tokensDelta,
    costDelta: delta(a?.costUsd, b?.costUsd),
    durationDelta: delta(a?.durationMs, b?.durationMs),
    signOffsChanged,
    assessmentsChanged,
    ...(scoreA !== undefined ? { scoreA } : {}),
    ...(scoreB !== undefined ? { scoreB } : {}),
  };
}

/** An answer as indented JSON, so a diff shows the fields that changed. */
function json(value: unknown): string {
  return value === undefined ? '' : (JSON.stringify(value, null, 2) ?? String(value));
}

/** b minus a; a side that has none counts as zero, and null when neither has one. */
function delta(a: number | null | undefined, b: number | null | undefined): number | null {
  if ((a ?? null) === null && (b ?? null) === null) return null;
  return (b ?? 0) - (a ?? 0);
}

function totals(recording: Recording, nodes: readonly RunNode[], scores: RunScores): RunTotals {
  const root = nodes[0];
  const byOutcome: Partial<Record<WorkflowStatus, number>> = {};
  const assessments: Partial<Record<TrajectoryAssessment, number>> = {};
  const signedOff: string[] = [];
  const refused: string[] = [];
  for (const node of nodes) {
    byOutcome[node.status] = (byOutcome[node.status] ?? 0) + 1;
    for (const assessment of node.assessments) assessments[assessment] = (assessments[assessment] ?? 0) + 1;
    for (const signOff of node.signOffs) (signOff.verdict === 'accept' ? signedOff : refused).push(signOff.goal);
  }
  return {
    runId: recording.run.id,
    rootName: recording.run.rootName,
    status: recording.run.status,
    // A run without a tree (never checkpointed) still has the usage its record stored.
    usage: root?.usage ?? recording.run.usage ?? null,
    tokens: root?.tokens ?? (recording.run.usage === undefined ? 0 : totalTokens(recording.run.usage)),
    costUsd: root?.costUsd ?? recording.run.usage?.costUsd ?? null,
    durationMs: root?.durationMs ?? null,
    nodes: nodes.length,
    byOutcome,
    signedOff: signedOff.sort(),
    refused: refused.sort(),
    assessments,
    score: scores.total,
  };
}
