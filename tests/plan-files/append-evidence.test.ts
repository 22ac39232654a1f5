import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors/groundswell-error.js';
import { appendEvidence, parsePlan, PlanGoalNotFoundError } from '../../src/plan-files/index.js';
import { AWKWARD_PLAN, SAMPLE_PLAN } from './sample-plan.js';

const GOAL_1 = 'Retry failed uploads with backoff';
const GOAL_2 = 'Report the final failure after the last retry';

const evidenceOf = (text: string, index: number) => parsePlan(text).goals[index]?.evidence;

describe('appendEvidence', () => {
  it('fills a placeholder evidence bullet: the placeholder goes, the items nest under it, nothing else changes', () => {
    const edited = appendEvidence(SAMPLE_PLAN, 'retry failed uploads with backoff', ['a: "x"', 'b: "y"']);
    expect(edited).toBe(
      SAMPLE_PLAN.replace('  - evidence: (empty until sign-off)\n', '  - evidence:\n    - a: "x"\n    - b: "y"\n'),
    );
    expect(evidenceOf(edited, 0)).toEqual(['a: "x"', 'b: "y"']);
  });

  it('appends after the existing items, continuation lines included', () => {
    const edited = appendEvidence(SAMPLE_PLAN, GOAL_2, ['npm test: "3 passed"']);
    expect(edited).toBe(
      SAMPLE_PLAN.replace(
        '    - git diff src/upload/report.ts: the catch now rethrows\n',
        '    - git diff src/upload/report.ts: the catch now rethrows\n    - npm test: "3 passed"\n',
      ),
    );
    const before = evidenceOf(SAMPLE_PLAN, 1) ?? [];
    expect(before).toHaveLength(2);
    expect(evidenceOf(edited, 1)).toEqual([...before, 'npm test: "3 passed"']);
  });

  it('appends in order across calls, and accepts a goal from an earlier parse', () => {
    const goal = parsePlan(SAMPLE_PLAN).goals[0];
    if (goal === undefined) throw new Error('no goal');
    const edited = appendEvidence(appendEvidence(SAMPLE_PLAN, goal, ['one']), goal, ['two']);
    expect(evidenceOf(edited, 0)).toEqual(['one', 'two']);
    expect(edited).toContain('  - evidence:\n    - one\n    - two\n2. [/] goal:');
  });

  it('creates the evidence bullet after the other sub-bullets when the goal has none', () => {
    const plan = SAMPLE_PLAN.replace('  - evidence: (empty until sign-off)\n', '');
    const edited = appendEvidence(plan, GOAL_1, ['the log: "ok"']);
    expect(edited).toBe(plan.replace('    2. [ ] wrap the upload call\n', '    2. [ ] wrap the upload call\n  - evidence:\n    - the log: "ok"\n'));
    expect(evidenceOf(edited, 0)).toEqual(['the log: "ok"']);
  });

  it('creates the bullet at the goal content column when the goal has no sub-bullets at all', () => {
    const plan = '# P\n\n## Goals\n\n1. [ ] goal: ship it\n2. [ ] goal: tell them\n\n## Log\n';
    const edited = appendEvidence(plan, 'ship it', ['shipped']);
    expect(edited).toBe('# P\n\n## Goals\n\n1. [ ] goal: ship it\n   - evidence:\n     - shipped\n2. [ ] goal: tell them\n\n## Log\n');
    expect(parsePlan(edited).goals.map((g) => g.evidence)).toEqual([['shipped'], []]);
  });

  it('keeps CRLF, unicode, trailing whitespace and the missing final newline', () => {
    const edited = appendEvidence(AWKWARD_PLAN, GOAL_2, ['日本語 — ✅ "done"']);
    expect(edited).toBe(
      AWKWARD_PLAN.replace(
        '    - git diff src/upload/report.ts: the catch now rethrows\r\n',
        '    - git diff src/upload/report.ts: the catch now rethrows\r\n    - 日本語 — ✅ "done"\r\n',
      ),
    );
  });

  it('appends at the very end of a file with no final newline, still without one', () => {
    const plan = '## Goals\n\n- [ ] goal: ship it\n  - evidence:\n    - first';
    expect(appendEvidence(plan, 'ship it', ['second'])).toBe(`${plan}\n    - second`);
  });

  it('follows the existing items: their indentation, marker and numbering', () => {
    const plan = '## Goals\n\n- [ ] goal: ship it\n    * evidence:\n        1. first\n        2. second\n';
    const edited = appendEvidence(plan, 'ship it', ['third']);
    expect(edited).toBe(`${plan}        3. third\n`);
    expect(parsePlan(edited).goals[0]?.evidence).toEqual(['first', 'second', 'third']);
  });

  it('keeps inline evidence that is not a placeholder', () => {
    const plan = '## Goals\n\n- [ ] goal: ship it\n  - evidence: the log says ok\n';
    const edited = appendEvidence(plan, 'ship it', ['more']);
    expect(edited).toBe(`${plan}    - more\n`);
    expect(parsePlan(edited).goals[0]?.evidence).toEqual(['the log says ok', 'more']);
  });

  it('leaves the goal below the fold alone and a goal after a blank line intact', () => {
    const edited = appendEvidence(SAMPLE_PLAN, GOAL_1, ['x']);
    expect(edited.slice(edited.indexOf('## Future work'))).toBe(SAMPLE_PLAN.slice(SAMPLE_PLAN.indexOf('## Future work')));
    expect(evidenceOf(edited, 1)).toEqual(evidenceOf(SAMPLE_PLAN, 1));
  });

  it('throws PlanGoalNotFoundError for an unknown goal, and refuses bad items, without editing', () => {
    expect(() => appendEvidence(SAMPLE_PLAN, 'Delete the archive', ['x'])).toThrow(PlanGoalNotFoundError);
    expect(() => appendEvidence(SAMPLE_PLAN, GOAL_1, [])).toThrow(UsageError);
    expect(() => appendEvidence(SAMPLE_PLAN, GOAL_1, ['  '])).toThrow(/item 0 must be a non-blank string/);
    expect(() => appendEvidence(SAMPLE_PLAN, GOAL_1, ['ok', 'two\nlines'])).toThrow(/item 1 is one line/);
    expect(() => appendEvidence(SAMPLE_PLAN, GOAL_1, ['(see the log)'])).toThrow(/placeholder/);
    expect(() => appendEvidence(SAMPLE_PLAN, GOAL_1, ['[x] goal: sneak in'])).toThrow(/goal line/);
  });
});
