import { describe, expect, it } from 'vitest';
import { activeGoal, parsePlan, type PlanGoal } from '../../src/plan-files/index.js';
import { AWKWARD_PLAN, SAMPLE_PLAN } from './sample-plan.js';

function goalAt(goals: readonly PlanGoal[], index: number): PlanGoal {
  const goal = goals[index];
  if (goal === undefined) throw new Error(`no goal ${index}`);
  return goal;
}

describe('parsePlan', () => {
  it('reads the title, the sections and the fold', () => {
    const plan = parsePlan(SAMPLE_PLAN);
    expect(plan.title).toBe('Retry flaky uploads');
    expect(plan.sections.map((s) => s.heading)).toEqual([
      'Retry flaky uploads',
      'User voice',
      'Goals',
      'Future work / out of scope',
      'Log',
      '2024-05-01',
      'Learnings',
      'Papercuts - problems, gotchas, suggestions',
      'Appendix (context, not approved)',
    ]);
    const lines = SAMPLE_PLAN.split('\n');
    expect(plan.hasLog).toBe(true);
    expect(lines[plan.foldIndex]).toBe('## Log');
    const log = plan.sections.find((s) => s.heading === 'Log');
    expect(lines[log?.endLine ?? -1]).toBe('## Learnings');
  });

  it('reads both goals above the fold with their sub-bullets, and ignores the appendix goal', () => {
    const { goals } = parsePlan(SAMPLE_PLAN);
    expect(goals.map((g) => g.text)).toEqual([
      'Retry failed uploads with backoff',
      'Report the final failure after the last retry',
    ]);
    const first = goalAt(goals, 0);
    expect(first.status).toBe('open');
    expect(SAMPLE_PLAN.split('\n')[first.line]).toBe('1. [ ] goal: Retry failed uploads with backoff');
    expect(first.subtleFailureMode).toBe('the retry wraps a call that never throws, so it never runs');
    expect(first.discriminator).toBe(
      'a test where the fake store fails twice, then succeeds, and the upload ends ok with three recorded attempts',
    );
    expect(first.verify).toBe('npx vitest run tests/upload/retry.test.ts');
    expect(first.tasks.map((t) => [t.text, t.status])).toEqual([
      ['add a fake store that fails on demand', 'done'],
      ['wrap the upload call', 'open'],
    ]);
    // The placeholder is a note to the reader, not evidence.
    expect(first.evidence).toEqual([]);

    const second = goalAt(goals, 1);
    expect(second.status).toBe('active');
    expect(second.verify).toBeUndefined();
    expect(second.evidence).toEqual([
      'tests/upload/report.test.ts "exits 1 after three failures": passed, see .ci/out/report.txt which quotes "exit code 1 (key=archive/2024.tar)"',
      'git diff src/upload/report.ts: the catch now rethrows',
    ]);
  });

  it('reads the four checkbox states, X as done', () => {
    const plan = ['# P', '## Goals', '- [ ] goal: a', '- [/] goal: b', '- [X] goal: c', '- [-] goal: d', '- [?] goal: e'].join('\n');
    expect(parsePlan(plan).goals.map((g) => [g.text, g.status])).toEqual([
      ['a', 'open'],
      ['b', 'active'],
      ['c', 'done'],
      ['d', 'dropped'],
    ]);
  });

  it('reads the same goals from a CRLF file with unicode and trailing whitespace', () => {
    const plan = parsePlan(AWKWARD_PLAN);
    expect(plan.goals.map((g) => g.text)).toEqual(parsePlan(SAMPLE_PLAN).goals.map((g) => g.text));
    expect(goalAt(plan.goals, 1).discriminator).toBe('the job exits 1 and the log names the object key — ✅ 日本語 🚀');
    expect(plan.sections.map((s) => s.heading)).toContain('Learnings');
  });

  it('skips headings and goal lines inside code fences', () => {
    const plan = ['# P', '## Goals', '```md', '## Log', '- [ ] goal: in a fence', '```', '- [ ] goal: real', '## Log'].join('\n');
    const parsed = parsePlan(plan);
    expect(parsed.goals.map((g) => g.text)).toEqual(['real']);
    expect(parsed.foldIndex).toBe(7);
  });

  it('puts the fold before the durable sections when the Log heading is missing', () => {
    const parsed = parsePlan('# P\n- [ ] goal: a\n## Learnings\n- [ ] goal: b\n');
    expect(parsed.hasLog).toBe(false);
    expect(parsed.foldIndex).toBe(2);
    expect(parsed.goals.map((g) => g.text)).toEqual(['a']);
  });

  it('parses an empty or goal-less text without throwing', () => {
    expect(parsePlan('')).toEqual({ title: '', sections: [], goals: [], foldIndex: 0, hasLog: false });
    expect(parsePlan('just words\n').goals).toEqual([]);
  });
});

describe('activeGoal', () => {
  it('is the [/] goal', () => {
    expect(activeGoal(SAMPLE_PLAN)?.text).toBe('Report the final failure after the last retry');
  });

  it('is undefined when no goal is active', () => {
    expect(activeGoal(SAMPLE_PLAN.replace('[/]', '[ ]'))).toBeUndefined();
  });
});
