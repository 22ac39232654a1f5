import { UsageError } from '../../errors/groundswell-error.js';
import { checkRecording, readRecording, type Recording } from './recording.js';
import { runNodes, type RunNode } from './run-nodes.js';

/**
 * Scores a node of a recorded run from 0 (bad) to 1 (good): a function of its answer and what
 * else the node holds, or an agent acting as judge (a function that asks one).
 */
export type Scorer = (node: RunNode, recording: Recording) => number | Promise<number>;

/**
 * Scorers by node path. A path without occurrence numbers (`Pipeline › ask`) scores every
 * occurrence; one with them scores that node only (`Pipeline › ask#1`, the first is `ask#0`).
 */
export type Scorers = Readonly<Record<string, Scorer>>;

/** One scorer's score of one node. */
export interface NodeScore {
  readonly path: string;
  /** The scorer's path as given. */
  readonly scorer: string;
  readonly score: number;
}

/** What the scorers made of one run. */
export interface RunScores {
  readonly scores: readonly NodeScore[];
  /** The mean of all scores; null when no scorer matched a node. */
  readonly total: number | null;
  /** Scorer paths that matched no node of the run. */
  readonly unmatched: readonly string[];
}

/** Runs `scorers` on the nodes of `recording` (a `Recording` or a file path) their paths name. */
export async function scoreRun(recording: Recording | string, scorers: Scorers): Promise<RunScores> {
  const recorded = typeof recording === 'string' ? await readRecording(recording) : checkRecording(recording);
  return scoreNodes(recorded, runNodes(recorded), scorers);
}

/** `scoreRun` on nodes already read. */
export async function scoreNodes(recording: Recording, nodes: readonly RunNode[], scorers: Scorers): Promise<RunScores> {
  const scores: NodeScore[] = [];
  const unmatched: string[] = [];
  for (const [path, scorer] of Object.entries(scorers)) {
    if (typeof scorer !== 'function') throw new ScorerError(`The scorer for "${path}" is not a function.`);
    const matched = nodes.filter((node) => pathMatches(path, node.path));
    if (matched.length === 0) unmatched.push(path);
    for (const node of matched) scores.push({ path: node.path, scorer: path, score: await runScorer(scorer, path, node, recording) });
  }
  return { scores, total: mean(scores.map((s) => s.score)), unmatched };
}

/** The mean of `values`, null when there are none. */
export function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, v) => sum + v, 0) / values.length;
}

const OCCURRENCE = /#\d+$/;

function pathMatches(scorerPath: string, nodePath: string): boolean {
  const names = scorerPath.split(' › ');
  if (names.some((name) => OCCURRENCE.test(name))) return names.map((name) => name.replace(/#0$/, '')).join(' › ') === nodePath;
  return nodePath.split(' › ').map((name) => name.replace(OCCURRENCE, '')).join(' › ') === scorerPath;
}

async function runScorer(scorer: Scorer, path: string, node: RunNode, recording: Recording): Promise<number> {
  let score: unknown;
  try {
    score = await scorer(node, recording);
  } catch (error) {
    throw new ScorerError(`The scorer for "${path}" failed on node "${node.path}" of run ${recording.run.id}: ${(error as Error)?.message ?? String(error)}`, { cause: error });
  }
  if (typeof score !== 'number' || !(score >= 0 && score <= 1)) {
    throw new ScorerError(`The scorer for "${path}" returned ${String(score)} for node "${node.path}" of run ${recording.run.id}: a score is a number from 0 to 1.`);
  }
  return score;
}

/** A scorer that is not a function, failed, or returned something other than a score in 0..1. */
export class ScorerError extends UsageError {}
