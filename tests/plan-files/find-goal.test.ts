import { describe, expect, it } from 'vitest';
import { GroundswellError } from '../../src/errors/groundswell-error.js';
import { findGoal, goalSimilarity, PlanGoalNotFoundError } from '../../src/plan-files/index.js';
import { AWKWARD_PLAN, SAMPLE_PLAN } from './sample-plan.js';

function notFound(run: () => unknown): PlanGoalNotFoundError {
  try {
    run();
  } catch (error) {
    if (error instanceof PlanGoalNotFoundError) return error;
    throw error;
  }
  throw new Error('expected PlanGoalNotFoundError');
}

describe('findGoal tolerates small wording drift', () => {
  it.each([
    ['exact text', 'Retry failed uploads with backoff'],
    ['with the goal: prefix', 'goal: Retry failed uploads with backoff'],
    ['case, punctuation and spacing', '  retry FAILED uploads,  with back-off!'],
    ['plural drift', 'Retries failed upload with backoff'],
    ['a word changed', 'Retry failing uploads with backoff'],
    ['a word dropped and one added', 'Retry the failed uploads using backoff'],
  ])('%s', (_case, query) => {
    expect(findGoal(SAMPLE_PLAN, query).text).toBe('Retry failed uploads with backoff');
  });

  it('finds the second goal from a paraphrase that keeps most words', () => {
    const goal = findGoal(SAMPLE_PLAN, 'report the final failure after the last retry attempt');
    expect(SAMPLE_PLAN.split('\n')[goal.line]).toBe('2. [/] goal: Report the final failure after the last retry');
  });

  it('works on a CRLF file', () => {
    expect(findGoal(AWKWARD_PLAN, 'report final failure after last retry').status).toBe('active');
  });
});

describe('findGoal rejects', () => {
  it('a query that names no goal, listing the closest candidates', () => {
    const error = notFound(() => findGoal(SAMPLE_PLAN, 'Make downloads faster'));
    expect(error).toBeInstanceOf(GroundswellError);
    expect(error.reason).toBe('no-match');
    expect(error.query).toBe('Make downloads faster');
    expect(error.candidates.map((c) => c.text)).toEqual(
      expect.arrayContaining(['Retry failed uploads with backoff', 'Report the final failure after the last retry']),
    );
    expect(error.message).toContain('Make downloads faster');
    expect(error.message).toContain('Retry failed uploads with backoff');
  });

  it('a goal that only exists below the fold', () => {
    expect(notFound(() => findGoal(SAMPLE_PLAN, 'an idea that is not approved')).reason).toBe('no-match');
  });

  it('a query that fits two goals equally well', () => {
    const plan = '# P\n## Goals\n- [ ] goal: Speed up the upload step\n- [ ] goal: Speed up the download step\n## Log\n';
    const error = notFound(() => findGoal(plan, 'speed up the step'));
    expect(error.reason).toBe('ambiguous');
    expect(error.candidates).toHaveLength(2);
  });

  it('two goals with the same text', () => {
    const plan = '- [ ] goal: Ship it\n- [x] goal: ship it.\n';
    expect(notFound(() => findGoal(plan, 'Ship it')).reason).toBe('ambiguous');
  });

  it('an empty query, and a plan with no goals', () => {
    expect(notFound(() => findGoal(SAMPLE_PLAN, '  ')).reason).toBe('no-match');
    const error = notFound(() => findGoal('# Nothing here\n', 'anything'));
    expect(error.candidates).toEqual([]);
    expect(error.message).toContain('no goal lines');
  });
});

describe('goalSimilarity', () => {
  it('ignores order, case and punctuation, and falls with each changed word', () => {
    expect(goalSimilarity('Retry uploads', 'uploads, RETRY')).toBe(1);
    expect(goalSimilarity('a b c d', 'a b c e')).toBe(0.75);
    expect(goalSimilarity('', 'x')).toBe(0);
  });
});
