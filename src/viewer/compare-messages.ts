import type { NodeKind, WorkflowStatus } from '../types/status.js';

/**
 * What the compare page shows of two runs (`viewer.showComparison`): plain JSON, shared by the
 * server that builds it (comparison-view.ts) and the page that draws it. Types only, and none from
 * durable/: the page's tsconfig would follow those into Node's modules.
 */

/** As `NodeChange` of a run comparison. */
type CompareChange = 'same' | 'changed' | 'added' | 'missing';

/** One run's node in a compare row. */
export interface CompareSide {
  readonly name: string;
  readonly status: WorkflowStatus;
  readonly tokens: number;
  readonly costUsd: number | null;
  readonly durationMs: number | null;
}

/** One matched path: run A's node on the left, run B's on the right. */
export interface CompareRow {
  readonly path: string;
  /** The path's last name (with its occurrence), shown indented by `depth`. */
  readonly label: string;
  readonly depth: number;
  readonly kind: NodeKind;
  readonly change: CompareChange;
  readonly a: CompareSide | null;
  readonly b: CompareSide | null;
  readonly outcomeChanged: boolean;
  readonly answerChanged: boolean;
  /** `-` lines are A's answer, `+` lines B's (JSON); null when the answers are the same. */
  readonly answerDiff: string | null;
  readonly tokensDelta: number;
  readonly costDelta: number | null;
  readonly durationDelta: number | null;
  readonly signOffsChanged: boolean;
  readonly scoreA: number | null;
  readonly scoreB: number | null;
}

/** One run's totals, as the page's header shows them. */
export interface CompareTotals {
  readonly runId: string;
  readonly rootName: string;
  readonly status: string;
  readonly tokens: number;
  readonly costUsd: number | null;
  readonly durationMs: number | null;
  readonly nodes: number;
  readonly score: number | null;
}

export interface ComparisonView {
  readonly summary: string;
  readonly a: CompareTotals;
  readonly b: CompareTotals;
  readonly counts: Readonly<Record<CompareChange, number>>;
  /** The comparison's node order: a's, with b's added nodes after the node they follow. */
  readonly rows: readonly CompareRow[];
}
