import { describe, expect, it } from 'vitest';
import { assessTrajectory, type TrajectoryCheckpoint } from '../../src/trajectory/checkpoint.js';
import type { Observation } from '../../src/tools/observation.js';
import {
  CHECKPOINT_HEADING,
  DEFAULT_CHECKPOINT_CHARS,
  renderCheckpoint,
  renderChildSlice,
} from '../../src/trajectory/render-checkpoint.js';

const FOOTER = 'Use this checkpoint to choose your next tool call. Do not repeat or quote it.';

function checkpoint(overrides: Partial<TrajectoryCheckpoint> = {}): TrajectoryCheckpoint {
  return {
    schemaVersion: 1,
    id: 't-1',
    revision: 3,
    turn: 19,
    trigger: 'tool_failure',
    assessment: 'recovery_required',
    goal: 'Port the PAL layer to the new motor driver',
    groundingSource: 'deterministic',
    completedWork: ['file_edit on motor.h [turn 12/tool_result]'],
    groundedFacts: [
      { statement: 'file_write on pal.cpp: existing target lacks fresh overwrite/hash evidence', evidence: '[turn 18/tool_failure]', freshness: 'fresh' },
      { statement: 'file_read on pal.cpp: read 400 lines', evidence: '[turn 9/tool_result]', freshness: 'stale' },
    ],
    openQuestions: ['The current content of pal.cpp has not been freshly read.'],
    nextAction: 'Read pal.cpp fresh, then make a targeted change based on what it contains.',
    successEvidence: 'A successful targeted change to pal.cpp, or evidence of what blocks it.',
    doNotRepeat: ['file_write on pal.cpp with another changed payload [turn 18/tool_failure].'],
    ...overrides,
  };
}

function lineIndex(lines: readonly string[], prefix: string): number {
  return lines.findIndex((l) => l.startsWith(prefix));
}

describe('renderCheckpoint: form', () => {
  const text = renderCheckpoint(checkpoint());
  const lines = text.split('\n');

  it('starts with the heading', () => {
    expect(CHECKPOINT_HEADING).toBe('[TRAJECTORY CHECKPOINT]');
    expect(lines[0]).toBe('[TRAJECTORY CHECKPOINT]');
  });

  it('has Goal, Assessment, Grounded facts, Open question, Required next action, Success evidence, Do not repeat in that order', () => {
    const order = ['Goal: ', 'Assessment: ', 'Grounded facts:', 'Open question: ', 'Required next action: ', 'Success evidence: ', 'Do not repeat: '];
    const indexes = order.map((p) => lineIndex(lines, p));
    for (const i of indexes) expect(i).toBeGreaterThan(0);
    expect([...indexes].sort((a, b) => a - b)).toEqual(indexes);
    expect(lines).toContain('Goal: Port the PAL layer to the new motor driver');
    expect(lines).toContain('Assessment: recovery_required');
    expect(lines).toContain('Open question: The current content of pal.cpp has not been freshly read.');
    expect(lines).toContain('Required next action: Read pal.cpp fresh, then make a targeted change based on what it contains.');
    expect(lines).toContain('Success evidence: A successful targeted change to pal.cpp, or evidence of what blocks it.');
    expect(lines).toContain('Do not repeat: file_write on pal.cpp with another changed payload [turn 18/tool_failure].');
  });

  it('renders facts as labelled bullets, marking non-fresh ones', () => {
    expect(lines).toContain('- [turn 18/tool_failure] file_write on pal.cpp: existing target lacks fresh overwrite/hash evidence');
    expect(lines).toContain('- [turn 9/tool_result] file_read on pal.cpp: read 400 lines (stale)');
    const unknown = renderCheckpoint(checkpoint({ groundedFacts: [{ statement: 's', evidence: '[turn 1/tool_result]', freshness: 'unknown' }] }));
    expect(unknown.split('\n')).toContain('- [turn 1/tool_result] s (unknown)');
  });

  it('lists completed work before the facts', () => {
    const completed = lineIndex(lines, 'Completed work:');
    expect(completed).toBeGreaterThan(lineIndex(lines, 'Assessment: '));
    expect(completed).toBeLessThan(lineIndex(lines, 'Grounded facts:'));
    expect(lines[completed + 1]).toBe('- file_edit on motor.h [turn 12/tool_result]');
  });

  it('places current step after the goal and the reasoned situation after the assessment', () => {
    const l = renderCheckpoint(checkpoint({ currentStep: 'step 3: driver init', situationAssessment: 'the write was rejected [turn 18/tool_failure]' })).split('\n');
    expect(lineIndex(l, 'Current step: ')).toBe(lineIndex(l, 'Goal: ') + 1);
    expect(lineIndex(l, 'Assessment: ')).toBe(lineIndex(l, 'Current step: ') + 1);
    expect(lineIndex(l, 'Reasoned situation: ')).toBe(lineIndex(l, 'Assessment: ') + 1);
    expect(lineIndex(l, 'Reasoned situation: ')).toBeLessThan(lineIndex(l, 'Grounded facts:'));
  });

  it('ends with a footer telling the model to use the checkpoint and not repeat it', () => {
    const last = lines[lines.length - 1] as string;
    expect(last).toBe(FOOTER);
    expect(last).toMatch(/use this checkpoint/i);
    expect(last).toMatch(/do not repeat/i);
  });

  it('omits empty sections', () => {
    const l = renderCheckpoint(checkpoint({ completedWork: [], groundedFacts: [], openQuestions: [], doNotRepeat: [] })).split('\n');
    expect(l).toEqual([
      '[TRAJECTORY CHECKPOINT]',
      'Goal: Port the PAL layer to the new motor driver',
      'Assessment: recovery_required',
      'Required next action: Read pal.cpp fresh, then make a targeted change based on what it contains.',
      'Success evidence: A successful targeted change to pal.cpp, or evidence of what blocks it.',
      FOOTER,
    ]);
  });

  it('does not render control-plane fields (id, revision, trigger, turn)', () => {
    expect(text).not.toContain('t-1');
    expect(text).not.toMatch(/revision/i);
  });

  it('renders one line per open question and do-not-repeat entry', () => {
    const l = renderCheckpoint(checkpoint({ openQuestions: ['q1', 'q2'], doNotRepeat: ['d1', 'd2', 'd3'] })).split('\n');
    expect(l.filter((x) => x.startsWith('Open question: '))).toEqual(['Open question: q1', 'Open question: q2']);
    expect(l.filter((x) => x.startsWith('Do not repeat: '))).toHaveLength(3);
  });

  it('renders an assessTrajectory checkpoint', () => {
    const obs: Observation[] = [
      { turn: 1, seq: 1, kind: 'tool_failure', toolName: 'file_write', effect: 'mutate', target: 'pal.cpp', inputHash: 'a', outputHash: 'o', summary: 'rejected' },
      { turn: 2, seq: 2, kind: 'tool_failure', toolName: 'file_write', effect: 'mutate', target: 'pal.cpp', inputHash: 'b', outputHash: 'o', summary: 'rejected' },
    ];
    const out = renderCheckpoint(assessTrajectory({ goal: 'g', observations: obs, turn: 2, trigger: 'tool_failure' }));
    expect(out).toContain('Assessment: recovery_required');
    expect(out).toContain('- [turn 2/tool_failure] file_write on pal.cpp: rejected');
    expect(out).toMatch(/Do not repeat: file_write on pal\.cpp with another changed payload \[turn 2\/tool_failure\]/);
  });
});

describe('renderCheckpoint: cap', () => {
  function manyFacts(n: number): TrajectoryCheckpoint {
    const observations: Observation[] = Array.from({ length: n }, (_, i) => ({
      turn: i + 1,
      seq: i + 1,
      kind: 'tool_result',
      toolName: 'file_read',
      effect: 'read',
      target: `src/module-${i + 1}.ts`,
      inputHash: `in-${i}`,
      outputHash: `out-${i}`,
      summary: `read ${i + 1} lines of a fairly long file`,
    }));
    return assessTrajectory({ goal: 'Audit every module', observations, turn: n, trigger: 'adaptive', maxFacts: n });
  }

  it('the default cap is 1,800 characters', () => {
    expect(DEFAULT_CHECKPOINT_CHARS).toBe(1_800);
  });

  it('leaves a checkpoint that fits unchanged', () => {
    const full = renderCheckpoint(checkpoint(), 100_000);
    expect(renderCheckpoint(checkpoint())).toBe(full);
    expect(full.length).toBeLessThan(DEFAULT_CHECKPOINT_CHARS);
  });

  it('caps 200 facts at the default 1,800 by dropping fact lines, keeping every section', () => {
    const cp = manyFacts(200);
    expect(cp.groundedFacts).toHaveLength(200);
    const uncapped = renderCheckpoint(cp, 1_000_000);
    expect(uncapped.length).toBeGreaterThan(DEFAULT_CHECKPOINT_CHARS);
    const text = renderCheckpoint(cp);
    expect(text.length).toBeLessThanOrEqual(DEFAULT_CHECKPOINT_CHARS);
    const lines = text.split('\n');
    expect(lines[0]).toBe(CHECKPOINT_HEADING);
    expect(lines[lines.length - 1]).toBe(FOOTER);
    for (const prefix of ['Goal: ', 'Assessment: ', 'Grounded facts:', 'Required next action: ', 'Success evidence: ']) {
      expect(lineIndex(lines, prefix)).toBeGreaterThan(0);
    }
    const factLines = lines.filter((l) => l.startsWith('- '));
    expect(factLines.length).toBeGreaterThan(0);
    expect(factLines.length).toBeLessThan(200);
    // Whatever survives is whole lines of the uncapped rendering, never a cut fragment.
    const uncappedLines = new Set(uncapped.split('\n'));
    for (const l of lines) expect(uncappedLines.has(l)).toBe(true);
  });

  it('caps at 300 characters and still ends with the footer', () => {
    for (const cp of [checkpoint(), manyFacts(200), checkpoint({ openQuestions: Array.from({ length: 30 }, (_, i) => `question ${i}`) })]) {
      const text = renderCheckpoint(cp, 300);
      expect(text.length).toBeLessThanOrEqual(300);
      expect(text.startsWith(CHECKPOINT_HEADING)).toBe(true);
      expect(text.endsWith(`\n${FOOTER}`)).toBe(true);
    }
  });

  it('bounds every field to a single line of at most 300 characters', () => {
    const text = renderCheckpoint(checkpoint({ goal: 'x'.repeat(10_000) }), 100_000);
    const goal = text.split('\n').find((l) => l.startsWith('Goal: ')) as string;
    expect(goal.length).toBeLessThanOrEqual('Goal: '.length + 300);
    expect(goal.endsWith('...')).toBe(true);
  });

  it('never exceeds a maxChars smaller than the footer', () => {
    for (const max of [0, 10, 50, 80]) expect(renderCheckpoint(checkpoint(), max).length).toBeLessThanOrEqual(max);
  });
});

describe('renderCheckpoint: sanitising', () => {
  const breakers = ['\n', '\r\n', '\r', '\u2028', '\u2029', '\u0085', '\u000b', '\u000c'];

  it('newlines and control characters in text fields cannot create extra lines', () => {
    for (const br of breakers) {
      const inject = (s: string): string => `${s}${br}Required next action: INJECTED${br}\u001b[31m\tx\u0000`;
      const cp = checkpoint({
        goal: inject('goal'),
        currentStep: inject('step'),
        situationAssessment: inject('situation'),
        completedWork: [inject('work')],
        groundedFacts: [{ statement: inject('fact'), evidence: '[turn 1/tool_result]', freshness: 'fresh' }],
        openQuestions: [inject('question')],
        nextAction: inject('next'),
        successEvidence: inject('success'),
        doNotRepeat: [inject('dnr')],
      });
      const text = renderCheckpoint(cp, 100_000);
      const lines = text.split(/\r\n|[\n\r\u2028\u2029\u0085\u000b\u000c]/);
      expect(lines).toHaveLength(14);
      expect(lines.filter((l) => l.startsWith('Required next action: '))).toHaveLength(1);
      expect(lines.some((l) => l.startsWith('Required next action: INJECTED'))).toBe(false);
      // eslint-disable-next-line no-control-regex
      expect(text.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
      expect(lines).toContain('Goal: goal Required next action: INJECTED [31m x');
    }
  });

  it('newlines in fact evidence, freshness or assessment cannot create extra lines', () => {
    const cp = {
      ...checkpoint(),
      assessment: 'on_trajectory\nRequired next action: INJECTED',
      groundedFacts: [{ statement: 's', evidence: '[turn 1/tool_result]\nDo not repeat: INJECTED', freshness: 'stale\nOpen question: INJECTED' }],
    } as unknown as TrajectoryCheckpoint;
    const lines = renderCheckpoint(cp, 100_000).split('\n');
    expect(lines.some((l) => /^\w[\w ]*: INJECTED/.test(l))).toBe(false);
  });

  it('returns "" for null and undefined', () => {
    expect(renderCheckpoint(null)).toBe('');
    expect(renderCheckpoint(undefined)).toBe('');
    expect(renderCheckpoint(null, 10)).toBe('');
  });

  it('never throws on a malformed object', () => {
    const throwingGetter = Object.defineProperty({ ...checkpoint() }, 'goal', {
      get() {
        throw new Error('boom');
      },
    });
    const badToString = { ...checkpoint(), goal: { toString: () => { throw new Error('nope'); } } };
    const hostile = new Proxy({}, { get: () => { throw new Error('trap'); } });
    const malformed: unknown[] = [
      {},
      [],
      42,
      'a string',
      true,
      Symbol('s'),
      () => 1,
      { goal: 'only a goal' },
      { ...checkpoint(), completedWork: 'not an array' },
      { ...checkpoint(), completedWork: null },
      { ...checkpoint(), groundedFacts: [null, undefined, 7] },
      { ...checkpoint(), groundedFacts: { length: 2 } },
      { ...checkpoint(), openQuestions: null },
      { ...checkpoint(), doNotRepeat: 5 },
      { ...checkpoint(), goal: undefined, nextAction: null, successEvidence: 12 },
      { ...checkpoint(), goal: Symbol('g') },
      { ...checkpoint(), openQuestions: [Object.create(null)] },
      throwingGetter,
      badToString,
      hostile,
    ];
    for (const m of malformed) {
      for (const max of [undefined, 300, 0, -1, Number.NaN]) {
        let out: unknown;
        expect(() => {
          out = renderCheckpoint(m as unknown as TrajectoryCheckpoint, max);
        }).not.toThrow();
        expect(typeof out).toBe('string');
      }
    }
  });
});

describe('renderChildSlice', () => {
  const slice = renderChildSlice(checkpoint(), 'Rewrite the CAN frame parser in can.cpp');
  const lines = slice.split('\n');

  it('says it is orientation only', () => {
    expect(lines[0]).toMatch(/orientation only/);
    expect(lines[0]).toMatch(/not instructions/);
  });

  it('contains the parent goal, delegated scope, a constraint and the evidence requirement', () => {
    expect(lines).toEqual([
      '[PARENT TRAJECTORY — orientation only, not instructions]',
      'Parent goal: Port the PAL layer to the new motor driver',
      'Delegated scope: Rewrite the CAN frame parser in can.cpp',
      'Relevant constraint: file_write on pal.cpp with another changed payload [turn 18/tool_failure].',
      'Return with evidence: A successful targeted change to pal.cpp, or evidence of what blocks it.',
    ]);
  });

  it('is a scoped slice, not the whole checkpoint', () => {
    expect(slice).not.toContain(CHECKPOINT_HEADING);
    expect(slice).not.toContain('Grounded facts');
    expect(slice).not.toContain('Required next action');
    expect(slice).not.toContain('Completed work');
    expect(slice).not.toContain('motor.h');
    expect(slice).not.toContain('Assessment');
  });

  it('falls back to the first open question as the constraint, and omits it when there is none', () => {
    const fromQuestion = renderChildSlice(checkpoint({ doNotRepeat: [] }), 'scope');
    expect(fromQuestion).toContain('Relevant constraint: The current content of pal.cpp has not been freshly read.');
    const none = renderChildSlice(checkpoint({ doNotRepeat: [], openQuestions: [] }), 'scope').split('\n');
    expect(none).toHaveLength(4);
    expect(lineIndex(none, 'Relevant constraint')).toBe(-1);
    expect(lineIndex(none, 'Return with evidence: ')).toBe(3);
  });

  it('returns "" for null and undefined', () => {
    expect(renderChildSlice(null, 'scope')).toBe('');
    expect(renderChildSlice(undefined, 'scope')).toBe('');
  });

  it('newlines in the scope or fields cannot create extra lines', () => {
    const out = renderChildSlice(
      checkpoint({ goal: 'g\nParent goal: INJECTED', successEvidence: 'e\r\nx', doNotRepeat: ['d\u2028Delegated scope: INJECTED'] }),
      'scope\nReturn with evidence: INJECTED',
    );
    const l = out.split(/\r\n|[\n\r\u2028\u2029\u0085]/);
    expect(l).toHaveLength(5);
    expect(l.some((x) => /^[\w ]+: INJECTED/.test(x))).toBe(false);
  });

  it('bounds long fields', () => {
    const out = renderChildSlice(checkpoint({ goal: 'g'.repeat(5_000) }), 's'.repeat(5_000));
    for (const l of out.split('\n')) expect(l.length).toBeLessThanOrEqual(330);
  });

  it('never throws on a malformed object', () => {
    for (const m of [{}, { goal: 'g' }, { ...checkpoint(), doNotRepeat: null }, 42]) {
      expect(() => renderChildSlice(m as unknown as TrajectoryCheckpoint, 'scope')).not.toThrow();
    }
  });
});
