import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors/groundswell-error.js';
import {
  appendLog,
  parsePlan,
  PlanGoalNotFoundError,
  setGoalStatus,
  type PlanGoalStatus,
} from '../../src/plan-files/index.js';
import { AWKWARD_PLAN, SAMPLE_PLAN } from './sample-plan.js';

const FIRST = '1. [ ] goal: Retry failed uploads with backoff';

describe('setGoalStatus changes one checkbox and nothing else', () => {
  it.each([
    ['open', ' '],
    ['active', '/'],
    ['done', 'x'],
    ['dropped', '-'],
  ] as const)('ticks %s as [%s]', (status: PlanGoalStatus, mark) => {
    const edited = setGoalStatus(SAMPLE_PLAN, 'retry failed uploads with backoff', status);
    expect(edited).toBe(SAMPLE_PLAN.replace(FIRST, `1. [${mark}] goal: Retry failed uploads with backoff`));
    expect(parsePlan(edited).goals[0]?.status).toBe(status);
  });

  it('accepts a goal from an earlier parse and finds it again after lines moved above it', () => {
    const goal = parsePlan(SAMPLE_PLAN).goals[1];
    if (goal === undefined) throw new Error('no goal');
    const moved = SAMPLE_PLAN.replace('## Goals\n', '## Goals\n\nA new note.\n');
    expect(setGoalStatus(moved, goal, 'done')).toBe(moved.replace('2. [/] goal: Report', '2. [x] goal: Report'));
  });

  it('keeps CRLF, unicode, trailing whitespace and the missing final newline', () => {
    const edited = setGoalStatus(AWKWARD_PLAN, 'Report the final failure after the last retry', 'done');
    expect(edited).toBe(AWKWARD_PLAN.replace('2. [/] goal:', '2. [x] goal:'));
  });

  it('rejects an unknown goal without editing, and an unknown status', () => {
    expect(() => setGoalStatus(SAMPLE_PLAN, 'Delete the archive', 'done')).toThrow(PlanGoalNotFoundError);
    expect(() => setGoalStatus(SAMPLE_PLAN, FIRST, 'finished' as PlanGoalStatus)).toThrow(UsageError);
  });
});

describe('appendLog', () => {
  it('adds the line at the end of the Log section, after its date subsection', () => {
    const edited = appendLog(SAMPLE_PLAN, '- signed off goal 1');
    expect(edited).toBe(SAMPLE_PLAN.replace('- drafted the plan\n', '- drafted the plan\n- signed off goal 1\n'));
  });

  it('appends in order across calls', () => {
    const edited = appendLog(appendLog(SAMPLE_PLAN, '- one'), '- two');
    expect(edited).toBe(SAMPLE_PLAN.replace('- drafted the plan\n', '- drafted the plan\n- one\n- two\n'));
  });

  it('keeps CRLF, unicode and trailing whitespace, and uses CRLF for the new line', () => {
    const edited = appendLog(AWKWARD_PLAN, '- judge accepted — ✅');
    expect(edited).toBe(AWKWARD_PLAN.replace('- drafted the plan\r\n', '- drafted the plan\r\n- judge accepted — ✅\r\n'));
  });

  it('writes into an empty Log section right under its heading', () => {
    const plan = '# P\n\n## Log\n\n## Learnings\n- x\n';
    expect(appendLog(plan, '- first')).toBe('# P\n\n## Log\n- first\n\n## Learnings\n- x\n');
  });

  it('keeps a file with no final newline without one when Log is the last section', () => {
    expect(appendLog('# P\r\n## Log\r\n- a', '- b')).toBe('# P\r\n## Log\r\n- a\r\n- b');
  });

  it('creates the Log section at the fold, before Learnings, Papercuts and Appendix', () => {
    const plan = SAMPLE_PLAN.replace('## Log\n### 2024-05-01\n- drafted the plan\n\n', '');
    const edited = appendLog(plan, '- started');
    expect(edited).toBe(plan.replace('## Learnings\n', '## Log\n\n- started\n\n## Learnings\n'));
    expect(parsePlan(edited).hasLog).toBe(true);
  });

  it('creates the Log section at the end when there is nothing below the fold', () => {
    expect(appendLog('# P\n- [ ] goal: a\n', '- x')).toBe('# P\n- [ ] goal: a\n\n## Log\n\n- x\n');
    expect(appendLog('# P\r\n\r\n', '- x')).toBe('# P\r\n\r\n## Log\r\n\r\n- x\r\n');
    expect(appendLog('# P', '- x')).toBe('# P\n\n## Log\n\n- x');
    expect(appendLog('', '- x')).toBe('## Log\n\n- x\n');
  });

  it('ignores a Log heading inside a code fence', () => {
    const plan = '# P\n```\n## Log\n```\n## Appendix\n';
    expect(appendLog(plan, '- x')).toBe('# P\n```\n## Log\n```\n## Log\n\n- x\n\n## Appendix\n');
  });

  it('refuses a multi-line or blank entry', () => {
    expect(() => appendLog(SAMPLE_PLAN, 'a\nb')).toThrow(UsageError);
    expect(() => appendLog(SAMPLE_PLAN, 'a\r\nb')).toThrow(UsageError);
    expect(() => appendLog(SAMPLE_PLAN, '   ')).toThrow(UsageError);
  });
});
