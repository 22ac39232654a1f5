import { GroundswellError } from '../errors/groundswell-error.js';

/** A goal of the plan that came close to a query, with its token-set similarity (0..1). */
export interface PlanGoalCandidate {
  readonly text: string;
  readonly score: number;
}

/**
 * A goal query matched no goal, or matched several equally well. Not a `UsageError`: the query
 * usually comes from a model, and a retry with the text copied from the plan does help. The
 * candidates are in the message so that retry has something to copy.
 */
export class PlanGoalNotFoundError extends GroundswellError {
  readonly query: string;
  readonly reason: 'no-match' | 'ambiguous';
  readonly candidates: readonly PlanGoalCandidate[];

  constructor(
    query: string,
    reason: 'no-match' | 'ambiguous',
    candidates: readonly PlanGoalCandidate[],
    options?: { cause?: unknown },
  ) {
    const listed =
      candidates.length === 0
        ? 'the plan has no goal lines above the fold'
        : `closest goals: ${candidates.map((c) => `"${c.text}" (${c.score.toFixed(2)})`).join('; ')}`;
    const what = reason === 'ambiguous' ? 'matches more than one goal equally well' : 'matches no goal in the plan';
    super(`Goal "${query}" ${what}; ${listed}`, options);
    this.query = query;
    this.reason = reason;
    this.candidates = candidates;
  }
}
