import type { RunStatus } from '../store/run-record.js';
import type { NodeKind, WorkflowStatus } from '../../types/status.js';
import type { TrajectoryAssessment } from '../../types/trajectory.js';
import type { TokenUsage } from '../../types/usage.js';
import type { RunNode } from './run-nodes.js';

/** How a node of the second run stands against the first. */
export type NodeChange = 'same' | 'changed' | 'added' | 'missing';

/** One node of either run, matched by path. `a` is the first run's node, `b` the second's. */
export interface NodeComparison {
  readonly path: string;
  readonly kind: NodeKind;
  /** `added`: only in b; `missing`: only in a; `changed`: outcome, answer, tokens, sign-offs, assessments or score differ. */
  readonly change: NodeChange;
  readonly a?: RunNode;
  readonly b?: RunNode;
  readonly outcomeChanged: boolean;
  readonly answerChanged: boolean;
  /** A line diff of the two answers as JSON (`-` a, `+` b), when they differ. */
  readonly answerDiff?: string;
  /** b minus a (a node only one run has counts as zero in the other). */
  readonly tokensDelta: number;
  readonly costDelta: number | null;
  readonly durationDelta: number | null;
  readonly signOffsChanged: boolean;
  readonly assessmentsChanged: boolean;
  /** Each run's score of the node (the mean when several scorers matched it). */
  readonly scoreA?: number;
  readonly scoreB?: number;
}

/** One run's totals. */
export interface RunTotals {
  readonly runId: string;
  readonly rootName: string;
  readonly status: RunStatus;
  /** Tokens and cost of the whole tree (from the root's subtree). */
  readonly usage: TokenUsage | null;
  readonly tokens: number;
  readonly costUsd: number | null;
  readonly durationMs: number | null;
  readonly nodes: number;
  /** Nodes by outcome. */
  readonly byOutcome: Partial<Record<WorkflowStatus, number>>;
  /** Goals the judge signed off, sorted; and those it refused. */
  readonly signedOff: readonly string[];
  readonly refused: readonly string[];
  readonly assessments: Partial<Record<TrajectoryAssessment, number>>;
  /** The mean of the run's scores; null without scores. */
  readonly score: number | null;
}

/** What `compareRuns` found. */
export interface RunComparison {
  readonly a: RunTotals;
  readonly b: RunTotals;
  /** Every node of either run: a's order, with b's added nodes after the node they follow in b. */
  readonly nodes: readonly NodeComparison[];
  readonly counts: Readonly<Record<NodeChange, number>>;
  /** Whether both signed off the same goals; null when neither has a sign-off. */
  readonly sameGoalsSignedOff: boolean | null;
  /** Scorer paths that matched no node in either run. */
  readonly unmatchedScorers: readonly string[];
  /** One line: `same outcome (completed), same goals signed off, 18% fewer tokens, score 0.82 → 0.91`. */
  readonly summary: string;
}
