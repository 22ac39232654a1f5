import { UsageError } from '../errors/groundswell-error.js';
import { goalSimilarity, normaliseGoalText } from './goal-similarity.js';
import { parsePlan } from './parse-plan.js';
import type { PlanGoal } from './plan-goal.js';
import { PlanGoalNotFoundError, type PlanGoalCandidate } from './plan-goal-not-found-error.js';

export interface FindGoalOptions {
  /**
   * Lowest similarity (0..1) that still counts as the same goal. The default, 0.6, lets an
   * eight-word goal survive two changed words, but not a different goal sharing a topic.
   */
  readonly threshold?: number;
  /**
   * The best match must beat the runner-up by this much; closer than that the query does not say
   * which goal it means, and ticking the wrong one is worse than asking again.
   */
  readonly margin?: number;
}

const DEFAULT_GOAL_MATCH_THRESHOLD = 0.6;
const DEFAULT_GOAL_MATCH_MARGIN = 0.1;
const CANDIDATES_SHOWN = 3;

/**
 * The goal (above the fold) whose text `query` names, tolerating small wording drift: an exact
 * match after normalising case, punctuation and whitespace wins; else the best token-set match at
 * or above the threshold, if clearly ahead of the rest. Throws `PlanGoalNotFoundError` otherwise.
 */
export function findGoal(text: string, query: string, options: FindGoalOptions = {}): PlanGoal {
  const threshold = options.threshold ?? DEFAULT_GOAL_MATCH_THRESHOLD;
  const margin = options.margin ?? DEFAULT_GOAL_MATCH_MARGIN;
  if (!(threshold > 0 && threshold <= 1) || !(margin >= 0 && margin <= 1)) {
    throw new UsageError(`findGoal: threshold must be in (0, 1] and margin in [0, 1], got ${threshold} and ${margin}`);
  }
  const goals = parsePlan(text).goals;
  const wanted = normaliseGoalText(query);
  const scored = goals
    .map((goal) => ({ goal, score: goalSimilarity(goal.text, query) }))
    .sort((a, b) => b.score - a.score);
  const candidates = (limit: number): PlanGoalCandidate[] =>
    scored.slice(0, limit).map(({ goal, score }) => ({ text: goal.text, score }));

  const exact = wanted === '' ? [] : goals.filter((goal) => normaliseGoalText(goal.text) === wanted);
  if (exact.length === 1 && exact[0] !== undefined) return exact[0];
  if (exact.length > 1) {
    throw new PlanGoalNotFoundError(query, 'ambiguous', exact.map((goal) => ({ text: goal.text, score: 1 })));
  }

  const [best, second] = scored;
  if (best === undefined || best.score < threshold) {
    throw new PlanGoalNotFoundError(query, 'no-match', candidates(CANDIDATES_SHOWN));
  }
  if (second !== undefined && second.score >= threshold && best.score - second.score < margin) {
    const close = scored.filter((s) => s.score >= threshold && best.score - s.score < margin).length;
    throw new PlanGoalNotFoundError(query, 'ambiguous', candidates(Math.max(close, 2)));
  }
  return best.goal;
}
