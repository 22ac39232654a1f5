import { describe, expect, it } from 'vitest';
import { assessTrajectory, checkpointFingerprint, type AssessInput, type TrajectoryCheckpoint } from '../../src/trajectory/checkpoint.js';
import { evidenceLabel, type Observation } from '../../src/tools/observation.js';

const LABEL = /\[turn \d+\/(tool_result|tool_failure|synthetic_block|child_result)\]/;

let seqCounter = 0;

/** A hand-built observation; `seq` increases with every call unless given. */
function obs(fields: Partial<Observation> & Pick<Observation, 'turn' | 'kind' | 'toolName'>): Observation {
  seqCounter += 1;
  return {
    seq: seqCounter,
    inputHash: 'in-0',
    outputHash: 'out-0',
    summary: 'ok',
    ...fields,
  };
}

function assess(observations: readonly Observation[], extra: Partial<AssessInput> = {}): TrajectoryCheckpoint {
  const last = observations[observations.length - 1];
  return assessTrajectory({ goal: 'Fix the PAL layer', observations, turn: last?.turn ?? 1, trigger: 'test', ...extra });
}

const failedWrite = (turn: number, inputHash: string, target = 'pal.cpp'): Observation =>
  obs({ turn, kind: 'tool_failure', toolName: 'file_write', effect: 'mutate', target, inputHash, summary: 'existing target lacks fresh hash evidence' });

const read = (turn: number, target = 'pal.cpp', fromCache = false): Observation =>
  obs({ turn, kind: 'tool_result', toolName: 'file_read', effect: 'read', target, inputHash: `read-${target}`, outputHash: 'bytes-1', summary: 'read 120 lines', fromCache });

const write = (turn: number, target = 'pal.cpp'): Observation =>
  obs({ turn, kind: 'tool_result', toolName: 'file_edit', effect: 'mutate', target, inputHash: `edit-${turn}`, summary: 'edited 3 lines' });

const verify = (turn: number, passed: boolean): Observation =>
  obs({ turn, kind: 'tool_result', toolName: 'run_tests', effect: 'verify', inputHash: 'tests', summary: passed ? 'all passed' : '2 failed', outcome: passed ? 'passed' : 'failed' });

describe('evidenceLabel', () => {
  it('names the turn and the kind of the observation', () => {
    expect(evidenceLabel(obs({ turn: 3, kind: 'tool_result', toolName: 'x' }))).toBe('[turn 3/tool_result]');
    expect(evidenceLabel(obs({ turn: 18, kind: 'synthetic_block', toolName: 'x' }))).toBe('[turn 18/synthetic_block]');
  });
});

describe('assessTrajectory: shape', () => {
  it('with no observations is on trajectory with a deterministic, schema-1 checkpoint', () => {
    const cp = assessTrajectory({ goal: 'g', observations: [], turn: 1, trigger: 'task_start' });
    expect(cp.schemaVersion).toBe(1);
    expect(cp.assessment).toBe('on_trajectory');
    expect(cp.goal).toBe('g');
    expect(cp.turn).toBe(1);
    expect(cp.trigger).toBe('task_start');
    expect(cp.revision).toBe(1);
    expect(typeof cp.id).toBe('string');
    expect(cp.id.length).toBeGreaterThan(0);
    expect(cp.groundingSource).toBe('deterministic');
    expect(cp.completedWork).toEqual([]);
    expect(cp.groundedFacts).toEqual([]);
    expect(cp.openQuestions).toEqual([]);
    expect(cp.doNotRepeat).toEqual([]);
    expect(cp.nextAction.length).toBeGreaterThan(0);
    expect(cp.successEvidence.length).toBeGreaterThan(0);
    expect('currentStep' in cp).toBe(false);
  });

  it('carries currentStep only when given', () => {
    const cp = assessTrajectory({ goal: 'g', currentStep: 'step 2', observations: [], turn: 4, trigger: 't' });
    expect(cp.currentStep).toBe('step 2');
  });

  it('gives fresh checkpoints distinct ids', () => {
    const a = assessTrajectory({ goal: 'g', observations: [], turn: 1, trigger: 't' });
    const b = assessTrajectory({ goal: 'g', observations: [], turn: 1, trigger: 't' });
    expect(a.id).not.toBe(b.id);
  });
});

describe('assessTrajectory: changed-payload write retries (criterion 1)', () => {
  const observations = [failedWrite(1, 'payload-a'), failedWrite(2, 'payload-b')];
  const cp = assess(observations);

  it('is recovery_required', () => {
    expect(cp.assessment).toBe('recovery_required');
  });

  it('asks for a fresh read of that target as the next action', () => {
    expect(cp.nextAction).toMatch(/read/i);
    expect(cp.nextAction).toContain('pal.cpp');
    expect(cp.nextAction).toMatch(/fresh/i);
    expect(cp.successEvidence).toContain('pal.cpp');
  });

  it('opens a question about the target not having been freshly read', () => {
    const question = cp.openQuestions.find((q) => q.includes('pal.cpp'));
    expect(question).toBeDefined();
    expect(question).toMatch(/not been freshly read/);
  });

  it('forbids another changed payload, labelled with the last failure', () => {
    expect(cp.doNotRepeat).toHaveLength(1);
    const entry = cp.doNotRepeat[0] as string;
    expect(entry).toContain('file_write');
    expect(entry).toContain('pal.cpp');
    expect(entry).toMatch(/changed payload/);
    expect(entry).toContain('[turn 2/tool_failure]');
  });

  it('claims no completed work', () => {
    expect(cp.completedWork).toEqual([]);
  });

  it('treats synthetic (preflight) blocks as failures of the target too', () => {
    const blocked = assess([
      obs({ turn: 1, kind: 'synthetic_block', toolName: 'file_write', effect: 'mutate', target: 'pal.cpp', inputHash: 'a' }),
      obs({ turn: 2, kind: 'synthetic_block', toolName: 'file_write', effect: 'mutate', target: 'pal.cpp', inputHash: 'b' }),
    ]);
    expect(blocked.assessment).toBe('recovery_required');
    expect(blocked.doNotRepeat.some((d) => /changed payload/.test(d) && d.includes('[turn 2/synthetic_block]'))).toBe(true);
  });

  it('says "same input", not "changed payload", when the payload did not change', () => {
    const same = assess([failedWrite(1, 'payload-a'), failedWrite(2, 'payload-a')]);
    expect(same.assessment).toBe('recovery_required');
    expect(same.doNotRepeat).toHaveLength(1);
    expect(same.doNotRepeat[0]).toMatch(/same input/);
    expect(same.doNotRepeat[0]).not.toMatch(/changed payload/);
  });

  it('a single failed write already requires the fresh read', () => {
    const one = assess([failedWrite(1, 'payload-a')]);
    expect(one.assessment).toBe('recovery_required');
    expect(one.nextAction).toContain('pal.cpp');
  });

  it('a read made before the failures does not satisfy the prerequisite', () => {
    const cp2 = assess([read(1), failedWrite(2, 'a'), failedWrite(3, 'b')]);
    expect(cp2.assessment).toBe('recovery_required');
  });

  it('a read of a different target does not satisfy the prerequisite', () => {
    const cp2 = assess([failedWrite(1, 'a'), failedWrite(2, 'b'), read(3, 'other.cpp')]);
    expect(cp2.assessment).toBe('recovery_required');
    expect(cp2.nextAction).toContain('pal.cpp');
  });

  it('a successful mutation of the target clears earlier failures', () => {
    const cp2 = assess([failedWrite(1, 'a'), failedWrite(2, 'b'), write(3), verify(4, true)]);
    expect(cp2.assessment).toBe('on_trajectory');
    expect(cp2.doNotRepeat).toEqual([]);
  });

  it('reports each failing target separately', () => {
    const cp2 = assess([failedWrite(1, 'a', 'a.cpp'), failedWrite(2, 'b', 'b.cpp')]);
    expect(cp2.assessment).toBe('recovery_required');
    expect(cp2.openQuestions.filter((q) => /not been freshly read/.test(q))).toHaveLength(2);
    expect(cp2.doNotRepeat).toHaveLength(2);
  });

  it('changed-payload failures after a fresh read still require recovery', () => {
    const cp2 = assess([failedWrite(1, 'a'), read(2), failedWrite(3, 'b'), failedWrite(4, 'c')]);
    expect(cp2.assessment).toBe('recovery_required');
    expect(cp2.doNotRepeat.some((d) => /changed payload/.test(d))).toBe(true);
  });
});

describe('assessTrajectory: cached reads (criterion 2)', () => {
  it('a cached read does not satisfy the fresh-read prerequisite and is flagged as not fresh', () => {
    const cp = assess([failedWrite(1, 'a'), failedWrite(2, 'b'), read(3, 'pal.cpp', true)]);
    expect(cp.assessment).toBe('recovery_required');
    expect(cp.nextAction).toContain('pal.cpp');
    expect(cp.openQuestions.some((q) => /not been freshly read/.test(q))).toBe(true);
    const cacheQuestion = cp.openQuestions.find((q) => /cache|replay/.test(q));
    expect(cacheQuestion).toBeDefined();
    expect(cacheQuestion).toContain('pal.cpp');
    expect(cacheQuestion).toMatch(/not fresh/);
    expect(cacheQuestion).toContain('[turn 3/tool_result]');
    expect(cp.doNotRepeat.some((d) => /changed payload/.test(d))).toBe(true);
  });

  it('a fresh read after the failures clears the prerequisite', () => {
    const cp = assess([failedWrite(1, 'a'), failedWrite(2, 'b'), read(3, 'pal.cpp', true), read(4)]);
    expect(cp.assessment).not.toBe('recovery_required');
    expect(cp.openQuestions.some((q) => /not been freshly read/.test(q))).toBe(false);
    expect(cp.doNotRepeat).toEqual([]);
    // The cached read is still reported as not fresh evidence.
    expect(cp.openQuestions.some((q) => /not fresh/.test(q) && q.includes('[turn 3/tool_result]'))).toBe(true);
  });

  it('a cached read on its own is an open question, never completed work', () => {
    const cp = assess([read(1, 'pal.cpp', true)]);
    expect(cp.completedWork).toEqual([]);
    expect(cp.openQuestions).toHaveLength(1);
    expect(cp.openQuestions[0]).toMatch(/not fresh/);
  });

  it('a failed read is not a fresh read', () => {
    const cp = assess([
      failedWrite(1, 'a'),
      failedWrite(2, 'b'),
      obs({ turn: 3, kind: 'tool_failure', toolName: 'file_read', effect: 'read', target: 'pal.cpp', summary: 'EACCES' }),
    ]);
    expect(cp.assessment).toBe('recovery_required');
  });
});

describe('assessTrajectory: child results (criterion 3)', () => {
  const child = (turn: number): Observation =>
    obs({ turn, kind: 'child_result', toolName: 'delegate_refactor', effect: 'mutate', target: 'pal.cpp', summary: 'child says done' });

  it('a child result yields verification_due and is not completed work', () => {
    const cp = assess([child(1)]);
    expect(cp.assessment).toBe('verification_due');
    expect(cp.completedWork).toEqual([]);
    expect(cp.openQuestions.some((q) => q.includes('delegate_refactor') && q.includes('[turn 1/child_result]'))).toBe(true);
    expect(cp.nextAction).toMatch(/verify/i);
    expect(cp.nextAction).toContain('delegate_refactor');
  });

  it('is not completed work even next to real completed work', () => {
    const cp = assess([write(1, 'a.cpp'), child(2)]);
    expect(cp.assessment).toBe('verification_due');
    expect(cp.completedWork).toHaveLength(1);
    expect(cp.completedWork.join('\n')).not.toContain('delegate_refactor');
    expect(cp.completedWork.join('\n')).not.toContain('child_result');
  });

  it('a passing verification after the child result brings it back on trajectory', () => {
    const cp = assess([child(1), verify(2, true)]);
    expect(cp.assessment).toBe('on_trajectory');
    expect(cp.completedWork).toEqual([]);
  });

  it('a failing verification after the child result leaves it due', () => {
    expect(assess([child(1), verify(2, false)]).assessment).toBe('verification_due');
  });
});

describe('assessTrajectory: verification after mutation (criterion 4)', () => {
  it('a mutation after the last passing verify is verification_due', () => {
    const cp = assess([verify(1, true), write(2)]);
    expect(cp.assessment).toBe('verification_due');
    expect(cp.nextAction).toMatch(/verifier/i);
    expect(cp.nextAction).toContain('pal.cpp');
    expect(cp.successEvidence).toMatch(/pass/i);
  });

  it('a passing verify after the mutation is on_trajectory', () => {
    const cp = assess([verify(1, true), write(2), verify(3, true)]);
    expect(cp.assessment).toBe('on_trajectory');
  });

  it('a failing verify after the mutation leaves verification due', () => {
    expect(assess([verify(1, true), write(2), verify(3, false)]).assessment).toBe('verification_due');
    expect(assess([write(1), verify(2, false)]).assessment).toBe('verification_due');
  });

  it('a verify that errored (tool_failure) does not count as passing', () => {
    const cp = assess([
      write(1),
      obs({ turn: 2, kind: 'tool_failure', toolName: 'run_tests', effect: 'verify', outcome: 'passed', summary: 'crashed' }),
    ]);
    expect(cp.assessment).toBe('verification_due');
  });

  it('a failed mutation does not make verification due', () => {
    const cp = assess([verify(1, true), failedWrite(2, 'a', 'x.cpp'), read(3, 'x.cpp')]);
    expect(cp.assessment).toBe('on_trajectory');
  });

  it('a mutation with no verification at all is verification_due', () => {
    expect(assess([write(1)]).assessment).toBe('verification_due');
  });
});

describe('assessTrajectory: verifier outcomes (issue #10, item 16)', () => {
  const unknownVerify = (turn: number): Observation =>
    obs({ turn, kind: 'tool_result', toolName: 'run_tests', effect: 'verify', inputHash: 'tests', summary: 'Done.', outcome: 'unknown' });

  it('after a failing verifier, the next action is a fix, then the run again', () => {
    const cp = assess([write(1), verify(2, false)]);
    expect(cp.assessment).toBe('verification_due');
    expect(cp.nextAction).toBe('Fix what run_tests reported [turn 2/tool_result], then run it again.');
  });

  it('an unknown outcome after a change is an open question, not verification due', () => {
    const cp = assess([write(1), unknownVerify(2)]);
    expect(cp.assessment).toBe('on_trajectory');
    expect(cp.openQuestions).toContain('The outcome of run_tests [turn 2/tool_result] is unknown: its result does not show whether the check passed.');
    expect(cp.nextAction).toMatch(/^Read the result of run_tests \[turn 2\/tool_result\] and decide whether the check passed/);
    expect(cp.nextAction).toContain('Do not run it again unchanged.');
    expect(cp.completedWork.join(' ')).not.toContain('run_tests');
  });

  it('a change after the unknown outcome makes verification due again', () => {
    const cp = assess([write(1), unknownVerify(2), write(3)]);
    expect(cp.assessment).toBe('verification_due');
    expect(cp.nextAction).toBe('Run the verifier for pal.cpp.');
  });

  it("a child's result checked with an unknown outcome keeps its open question", () => {
    const child = obs({ turn: 1, kind: 'child_result', toolName: 'delegate', summary: 'child says done' });
    const cp = assess([child, unknownVerify(2)]);
    expect(cp.assessment).toBe('on_trajectory');
    expect(cp.openQuestions.some((q) => q.startsWith('The result of delegate [turn 1/child_result] has not been verified'))).toBe(true);
    expect(cp.openQuestions.some((q) => q.startsWith('The outcome of run_tests [turn 2/tool_result] is unknown'))).toBe(true);
  });

  it('a verifier result without an outcome is unknown, never a pass', () => {
    const bare = obs({ turn: 2, kind: 'tool_result', toolName: 'run_tests', effect: 'verify', summary: 'ran' });
    expect(assess([write(1), bare]).openQuestions.join(' ')).toContain('is unknown');
  });

  it('grounded facts declare each verifier outcome in words and as a field', () => {
    const facts = assess([verify(1, true), verify(2, false), unknownVerify(3), read(4)]).groundedFacts;
    expect(facts.map((f) => f.outcome)).toEqual(['passed', 'failed', 'unknown', undefined]);
    expect(facts.map((f) => f.statement)).toEqual([
      'run_tests: verifier passed: all passed',
      'run_tests: verifier failed: 2 failed',
      'run_tests: verifier outcome unknown: Done.',
      'file_read on pal.cpp: read 120 lines',
    ]);
  });

  it('a refused verifier never ran: it is neither a pass nor a failure', () => {
    const refused = obs({ turn: 2, kind: 'synthetic_block', toolName: 'run_tests', effect: 'verify', summary: 'refused' });
    const cp = assess([write(1), refused]);
    expect(cp.assessment).toBe('verification_due');
    expect(cp.nextAction).toBe('Run the verifier for pal.cpp.');
    expect(cp.groundedFacts.at(-1)?.outcome).toBeUndefined();
  });
});

describe('assessTrajectory: repeated refusals (criterion 5)', () => {
  const refused = (turn: number, inputHash = 'same'): Observation =>
    obs({ turn, kind: 'synthetic_block', toolName: 'shell', inputHash, summary: 'refused by policy' });

  it('the same refused call three times is blocked', () => {
    const cp = assess([refused(1), refused(2), refused(3)]);
    expect(cp.assessment).toBe('blocked');
    expect(cp.nextAction).toMatch(/stop calling shell/i);
    expect(cp.doNotRepeat.some((d) => d.includes('shell') && /same input/.test(d) && d.includes('[turn 3/synthetic_block]'))).toBe(true);
  });

  it('the same failing tool call three times is blocked', () => {
    const failing = (turn: number): Observation => obs({ turn, kind: 'tool_failure', toolName: 'http_get', target: 'https://x', inputHash: 'q' });
    expect(assess([failing(1), failing(2), failing(3)]).assessment).toBe('blocked');
  });

  it('blocked overrides recovery for the same refused write three times', () => {
    const cp = assess([failedWrite(1, 'p'), failedWrite(2, 'p'), failedWrite(3, 'p')]);
    expect(cp.assessment).toBe('blocked');
    expect(cp.doNotRepeat).toEqual([...new Set(cp.doNotRepeat)]);
    expect(cp.doNotRepeat.every((d) => LABEL.test(d))).toBe(true);
  });

  it('two refusals are not yet blocked', () => {
    expect(assess([refused(1), refused(2)]).assessment).not.toBe('blocked');
  });

  it('three refusals with different inputs are not blocked', () => {
    expect(assess([refused(1, 'a'), refused(2, 'b'), refused(3, 'c')]).assessment).not.toBe('blocked');
  });

  it('a different action in between is not blocked', () => {
    expect(assess([refused(1), refused(2), read(3, 'a.txt'), refused(4)]).assessment).not.toBe('blocked');
  });

  it('only the last three observations count', () => {
    expect(assess([refused(1), refused(2), refused(3), read(4, 'a.txt')]).assessment).not.toBe('blocked');
    expect(assess([read(1, 'a.txt'), refused(2), refused(3), refused(4)]).assessment).toBe('blocked');
  });
});

describe('assessTrajectory: evidence and freshness (criterion 6)', () => {
  const mixed = [
    read(1, 'a.cpp'),
    write(2, 'a.cpp'),
    write(3, 'b.cpp'),
    read(4, 'c.cpp', true),
    verify(5, true),
    failedWrite(6, 'z', 'd.cpp'),
    obs({ turn: 7, kind: 'child_result', toolName: 'delegate', summary: 'did it' }),
  ];
  const cp = assess(mixed, { maxFacts: 50 });

  it('every completed-work item carries an evidence label', () => {
    expect(cp.completedWork.length).toBe(2);
    for (const item of cp.completedWork) expect(item).toMatch(LABEL);
    expect(cp.completedWork).toContain('file_edit on a.cpp [turn 2/tool_result]');
    expect(cp.completedWork).toContain('file_edit on b.cpp [turn 3/tool_result]');
  });

  it('every grounded fact carries the evidence label of its observation', () => {
    expect(cp.groundedFacts).toHaveLength(mixed.length);
    cp.groundedFacts.forEach((fact, i) => {
      expect(fact.evidence).toMatch(LABEL);
      expect(fact.evidence).toBe(evidenceLabel(mixed[i] as Observation));
      expect(fact.statement.length).toBeGreaterThan(0);
    });
  });

  it('every do-not-repeat entry carries an evidence label', () => {
    for (const entry of cp.doNotRepeat) expect(entry).toMatch(LABEL);
  });

  it('a cached read is "unknown", a read followed by a mutation of its target is "stale"', () => {
    const byEvidence = (label: string) => cp.groundedFacts.find((f) => f.evidence === label);
    expect(byEvidence('[turn 1/tool_result]')?.freshness).toBe('stale');
    expect(byEvidence('[turn 4/tool_result]')?.freshness).toBe('unknown');
    expect(byEvidence('[turn 2/tool_result]')?.freshness).toBe('fresh');
  });

  it('a read is stale only once its own target is mutated, and only by a successful mutation', () => {
    const c = assess([read(1, 'a.cpp'), write(2, 'b.cpp'), read(3, 'c.cpp'), failedWrite(4, 'x', 'c.cpp')], { maxFacts: 10 });
    expect(c.groundedFacts.map((f) => f.freshness)).toEqual(['fresh', 'fresh', 'fresh', 'fresh']);
  });

  it('a cached read stays "unknown" even when its target is later mutated', () => {
    const c = assess([read(1, 'a.cpp', true), write(2, 'a.cpp')]);
    expect(c.groundedFacts[0]?.freshness).toBe('unknown');
  });

  it('a cached mutation result is not completed work', () => {
    const c = assess([obs({ turn: 1, kind: 'tool_result', toolName: 'file_edit', effect: 'mutate', target: 'a.cpp', fromCache: true })]);
    expect(c.completedWork).toEqual([]);
    expect(c.groundedFacts[0]?.freshness).toBe('unknown');
  });

  it('statements name the tool, the target and the summary', () => {
    const c = assess([read(1, 'a.cpp')]);
    expect(c.groundedFacts[0]?.statement).toBe('file_read on a.cpp: read 120 lines');
  });

  it('keeps only the newest maxFacts observations as facts (default 6)', () => {
    const many = Array.from({ length: 10 }, (_, i) => read(i + 1, `f${i + 1}.cpp`));
    const c = assess(many);
    expect(c.groundedFacts).toHaveLength(6);
    expect(c.groundedFacts[0]?.evidence).toBe('[turn 5/tool_result]');
    expect(c.groundedFacts[5]?.evidence).toBe('[turn 10/tool_result]');
    expect(assess(many, { maxFacts: 2 }).groundedFacts.map((f) => f.evidence)).toEqual(['[turn 9/tool_result]', '[turn 10/tool_result]']);
  });

  it('maxFacts: 0 yields no facts', () => {
    const many = Array.from({ length: 10 }, (_, i) => read(i + 1, `f${i + 1}.cpp`));
    expect(assess(many, { maxFacts: 0 }).groundedFacts).toEqual([]);
  });

  it('deduplicates open questions', () => {
    const c = assess([read(1, 'a.cpp', true), read(1, 'a.cpp', true)]);
    expect(c.openQuestions).toHaveLength(1);
  });
});

describe('revision and fingerprint (criterion 7)', () => {
  const observations = [failedWrite(1, 'a'), failedWrite(2, 'b'), read(3, 'pal.cpp', true)];

  it('the same observations give the same fingerprint', () => {
    const a = assess(observations);
    const b = assess(observations);
    expect(a.id).not.toBe(b.id);
    expect(checkpointFingerprint(a)).toBe(checkpointFingerprint(b));
    expect(checkpointFingerprint(a)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('the fingerprint ignores id, revision, turn and trigger', () => {
    const a = assess(observations);
    const b = { ...a, id: 'other', revision: 99, turn: 42, trigger: 'compaction' };
    expect(checkpointFingerprint(b)).toBe(checkpointFingerprint(a));
  });

  it('the fingerprint changes with content', () => {
    const a = assess(observations);
    expect(checkpointFingerprint({ ...a, assessment: 'blocked' })).not.toBe(checkpointFingerprint(a));
    expect(checkpointFingerprint({ ...a, goal: 'another goal' })).not.toBe(checkpointFingerprint(a));
    expect(checkpointFingerprint({ ...a, doNotRepeat: [] })).not.toBe(checkpointFingerprint(a));
    expect(checkpointFingerprint({ ...a, situationAssessment: 'x' })).not.toBe(checkpointFingerprint(a));
  });

  it('same observations with `previous` keep the id and the revision', () => {
    const first = assess(observations, { turn: 3, trigger: 'tool_failure' });
    const second = assess(observations, { previous: first, turn: 4, trigger: 'adaptive_cadence' });
    expect(second.id).toBe(first.id);
    expect(second.revision).toBe(first.revision);
    expect(second.revision).toBe(1);
    expect(checkpointFingerprint(second)).toBe(checkpointFingerprint(first));
    expect(second.turn).toBe(4);
    expect(second.trigger).toBe('adaptive_cadence');
  });

  it('a change bumps the revision by one and keeps the id', () => {
    const first = assess(observations);
    const second = assess([...observations, read(4)], { previous: first });
    expect(second.id).toBe(first.id);
    expect(second.revision).toBe(2);
    expect(second.assessment).not.toBe(first.assessment);
    const third = assess([...observations, read(4)], { previous: second });
    expect(third.revision).toBe(2);
    const fourth = assess([...observations, read(4), write(5)], { previous: third });
    expect(fourth.id).toBe(first.id);
    expect(fourth.revision).toBe(3);
  });

  it('bumps from whatever revision the previous checkpoint had', () => {
    const first = assess(observations);
    const restored = { ...first, revision: 7 };
    expect(assess(observations, { previous: restored }).revision).toBe(7);
    expect(assess([read(9, 'x')], { previous: restored }).revision).toBe(8);
  });

  it('a goal change alone bumps the revision', () => {
    const first = assess(observations);
    expect(assess(observations, { previous: first, goal: 'new goal' }).revision).toBe(2);
  });

  it('the fingerprint does not depend on property order', () => {
    const a = assess(observations);
    const reordered = Object.fromEntries(Object.entries(a).reverse()) as unknown as TrajectoryCheckpoint;
    expect(reordered).toEqual(a);
    expect(checkpointFingerprint(reordered)).toBe(checkpointFingerprint(a));
  });
});
