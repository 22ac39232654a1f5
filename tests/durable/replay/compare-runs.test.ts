import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt } from 'groundswell';
import { compareRuns, exportRecording, formatComparison, JournalRunStore, scoreRun, ScorerError, writeRecording, type Recording, type RunNode } from 'groundswell/durable';
import { json, ScriptedModel } from 'groundswell/testing';
import { liveJudge, liveModel, pipeline as pipeline20, PIPELINE_CALLS } from './pipeline-fixture.js';
import { BASE, cost, costOf, pipeline, record as recordRun, tokensOf, type Reply } from './compare-fixture.js';

let dir: string;
let store: JournalRunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-compare-'));
  store = new JournalRunStore({ dir, fsync: 'off' });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const record = (runId: string, replies: readonly Reply[], check = false): Promise<Recording> => recordRun(store, runId, replies, check);

describe('compareRuns', () => {
  it('matches nodes by path and reports answer, token and cost differences, with totals', async () => {
    const changed: Reply[] = [BASE[0] as Reply, { n: 5, input: 100, output: 40 }, { n: 3, input: 150, output: 30 }];
    const a = await record('a', BASE);
    const b = await record('b', changed);
    const c = await compareRuns(a, b);

    expect(c.nodes.map((n) => [n.path, n.change])).toEqual([
      ['Pipeline', 'changed'],
      ['Pipeline › ask', 'same'],
      ['Pipeline › ask › counter', 'same'],
      ['Pipeline › ask#1', 'changed'],
      ['Pipeline › ask#1 › counter', 'changed'],
      ['Pipeline › summarize', 'changed'],
      ['Pipeline › summarize › counter', 'changed'],
    ]);
    const second = c.nodes.find((n) => n.path === 'Pipeline › ask#1 › counter');
    expect(second?.a?.answer).toEqual({ n: 2 });
    expect(second?.b?.answer).toEqual({ n: 5 });
    expect(second?.answerDiff).toContain('-   "n": 2\n+   "n": 5');
    expect(second?.tokensDelta).toBe(140 - 120);
    expect(second?.costDelta).toBeCloseTo(cost(100, 40) - cost(100, 20), 12);
    // The step's answer is its stored value; the root's, the run's result.
    expect(c.nodes.find((n) => n.path === 'Pipeline › ask#1')?.b?.answer).toEqual({ n: 5 });
    expect(c.nodes[0]?.a?.answer).toBe(6);
    expect(c.nodes[0]?.b?.answer).toBe(9);

    expect(c.a.tokens).toBe(tokensOf(BASE));
    expect(c.b.tokens).toBe(tokensOf(changed));
    expect(c.a.costUsd).toBeCloseTo(costOf(BASE), 12);
    expect(c.b.costUsd).toBeCloseTo(costOf(changed), 12);
    expect(c.a.byOutcome).toEqual({ completed: 7 });
    expect(c.counts).toEqual({ same: 2, changed: 5, added: 0, missing: 0 });
    const fewer = Math.round(((tokensOf(BASE) - tokensOf(changed)) / tokensOf(BASE)) * 100);
    expect(c.summary).toBe(`same outcome (completed), nodes: 5 changed, ${fewer}% fewer tokens`);
    expect(typeof c.nodes[0]?.durationDelta).toBe('number');

    const table = formatComparison(c);
    expect(table).toContain('run a (Pipeline, completed) → run b (Pipeline, completed)');
    expect(table).toMatch(/Pipeline › ask#1 › counter\s+changed\s+completed\s+120 → 140/);
    expect(table).toContain('answer of Pipeline › ask#1, Pipeline › ask#1 › counter (- a, + b):');
    expect(table).toMatch(new RegExp(`total\\s+5 of 7 differ\\s+completed\\s+${tokensOf(BASE)} → ${tokensOf(changed)}`));
  });

  it('reports the nodes an added step brings and the ones a removed step takes away', async () => {
    const a = await record('a', BASE);
    const withCheck = [BASE[0], BASE[1], { n: 0, input: 10, output: 5 }, BASE[2]] as Reply[];
    const b = await record('b', withCheck, true);
    const c = await compareRuns(a, b);
    expect(c.nodes.filter((n) => n.change === 'added').map((n) => n.path)).toEqual(['Pipeline › check', 'Pipeline › check › counter']);
    // Placed where the step ran: after the second ask, before summarize.
    expect(c.nodes.map((n) => n.path).indexOf('Pipeline › check')).toBe(c.nodes.map((n) => n.path).indexOf('Pipeline › ask#1 › counter') + 1);
    expect(c.nodes.find((n) => n.path === 'Pipeline › check › counter')?.tokensDelta).toBe(15);
    expect(c.counts.added).toBe(2);
    const back = await compareRuns(b, a);
    expect(back.nodes.filter((n) => n.change === 'missing').map((n) => n.path)).toEqual(['Pipeline › check', 'Pipeline › check › counter']);
    expect(back.summary).toContain('2 missing');
    expect(formatComparison(back)).toMatch(/Pipeline › check\s+missing\s+completed → -/);
  });

  it('reports a changed outcome', async () => {
    const a = await record('a', BASE);
    const failing = new ScriptedModel([json({ n: 1 }), json({ n: 2 })]);
    await expect(pipeline(store, 'b', failing).run()).rejects.toThrow();
    const b = await exportRecording(store, 'b');
    const c = await compareRuns(a, b);
    expect(c.summary).toMatch(/^outcome completed → failed/);
    const summarize = c.nodes.find((n) => n.path === 'Pipeline › summarize');
    expect([summarize?.a?.status, summarize?.b?.status, summarize?.outcomeChanged]).toEqual(['completed', 'failed', true]);
    expect(c.b.byOutcome.failed).toBeGreaterThanOrEqual(2);
  });

  it('compares recordings read from files', async () => {
    const a = await record('a', BASE);
    const fileA = join(dir, 'a.json');
    await writeRecording(fileA, a);
    const c = await compareRuns(fileA, a);
    expect(c.counts).toEqual({ same: 7, changed: 0, added: 0, missing: 0 });
    expect(c.summary).toBe('same outcome (completed), no node changed, same tokens');
    await expect(compareRuns(join(dir, 'none.json'), a)).rejects.toThrow(/Cannot read the recording/);
  });

  it("counts the judge's sign-offs and trajectory assessments per node", async () => {
    const a = await record('a', BASE);
    const withEvents = (recording: Recording, goals: readonly [string, 'accept' | 'reject'][]): Recording => {
      const copy = structuredClone(recording) as Recording & { tree: { root: { children: { events: unknown[] }[] } } };
      const step = copy.tree.root.children[2] as { events: unknown[] };
      for (const [goal, verdict] of goals) step.events.push({ type: 'goalSignOff', id: 0, nodeId: 'x', workflowId: 'w', timestamp: 0, goal, verdict, missing: '', judgeFailed: false, planPath: 'plan.md' });
      step.events.push({ type: 'trajectoryCheckpoint', id: 0, nodeId: 'x', workflowId: 'w', timestamp: 0, agentName: 'counter', revision: 1, assessment: 'on_trajectory', injected: true, checkpoint: {} });
      return copy;
    };
    const left = withEvents(a, [['tests pass', 'accept'], ['docs written', 'accept']]);
    const same = await compareRuns(left, withEvents(a, [['docs written', 'accept'], ['tests pass', 'accept']]));
    expect(same.sameGoalsSignedOff).toBe(true);
    expect(same.summary).toContain('same goals signed off');
    expect(same.a.signedOff).toEqual(['docs written', 'tests pass']);
    expect(same.a.assessments).toEqual({ on_trajectory: 1 });
    const other = await compareRuns(left, withEvents(a, [['tests pass', 'accept'], ['docs written', 'reject']]));
    expect(other.sameGoalsSignedOff).toBe(false);
    expect(other.b.refused).toEqual(['docs written']);
    expect(other.summary).toContain('other goals signed off (2 → 1)');
    const node = other.nodes.find((n) => n.path === 'Pipeline › summarize');
    expect([node?.change, node?.signOffsChanged, node?.assessmentsChanged]).toEqual(['changed', true, false]);
    expect(formatComparison(other)).toMatch(/Pipeline › summarize\s+changed.*2\/2 → 1\/2/);
    expect((await compareRuns(a, a)).sameGoalsSignedOff).toBeNull();
  });
});

describe('scorers', () => {
  /** Scores an answer by how close its n is to 3. */
  const closeToThree = (node: RunNode): number => 1 / (1 + Math.abs((node.answer as { n: number }).n - 3));

  it('scores nodes by path, per node and in total, in compareRuns and scoreRun', async () => {
    const a = await record('a', BASE);
    const b = await record('b', [{ n: 3, input: 100, output: 20 }, { n: 2, input: 100, output: 20 }, { n: 3, input: 200, output: 60 }]);
    const scorers = { 'Pipeline › ask#0 › counter': closeToThree, 'Pipeline › summarize': closeToThree };
    const c = await compareRuns(a, b, { scorers });
    const first = c.nodes.find((n) => n.path === 'Pipeline › ask › counter');
    expect([first?.scoreA, first?.scoreB]).toEqual([1 / 3, 1]);
    expect(c.nodes.find((n) => n.path === 'Pipeline › summarize')?.scoreA).toBe(1);
    expect(c.a.score).toBeCloseTo((1 / 3 + 1) / 2, 12);
    expect(c.b.score).toBe(1);
    expect(c.summary).toContain('score 0.67 → 1.00');
    expect(formatComparison(c)).toMatch(/Pipeline › ask › counter\s+changed.*0\.33 → 1\.00/);

    // A path without occurrences scores each one; a path that names no node is reported.
    const scored = await scoreRun(a, { 'Pipeline › ask › counter': closeToThree, 'Pipeline › ask': () => 0.5, 'Pipeline › nothing': () => 1 });
    expect(scored.scores.map((s) => [s.path, s.score])).toEqual([
      ['Pipeline › ask › counter', 1 / 3],
      ['Pipeline › ask#1 › counter', 1 / 2],
      ['Pipeline › ask', 0.5],
      ['Pipeline › ask#1', 0.5],
    ]);
    expect(scored.total).toBeCloseTo((1 / 3 + 1 / 2 + 0.5 + 0.5) / 4, 12);
    expect(scored.unmatched).toEqual(['Pipeline › nothing']);
    expect((await scoreRun(a, { 'Pipeline › ask#1 › counter': closeToThree })).scores.map((s) => s.score)).toEqual([1 / 2]);
  });

  it('takes an agent acting as judge', async () => {
    const a = await record('a', BASE);
    const judgeModel = new ScriptedModel([json({ score: 0.25 })]);
    const judge = createAgent({ name: 'judge', client: judgeModel.client() });
    const byJudge = async (node: RunNode): Promise<number> =>
      (await judge.prompt(createPrompt({ user: `Score this summary from 0 to 1: ${JSON.stringify(node.answer)}`, responseFormat: z.object({ score: z.number() }) }))).score;
    const scored = await scoreRun(a, { 'Pipeline › summarize': byJudge });
    expect(scored.total).toBe(0.25);
    expect(judgeModel.requests).toHaveLength(1);
  });

  it('refuses a score outside 0..1 and names the scorer when it throws', async () => {
    const a = await record('a', BASE);
    await expect(scoreRun(a, { 'Pipeline › summarize': () => 1.5 })).rejects.toThrow(/returned 1.5 for node "Pipeline › summarize" of run a: a score is a number from 0 to 1/);
    const failed = await scoreRun(a, {
      'Pipeline › summarize': () => {
        throw new Error('no answer');
      },
    }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ScorerError);
    expect((failed as Error).message).toMatch(/The scorer for "Pipeline › summarize" failed on node "Pipeline › summarize" of run a: no answer/);
    expect((failed as Error).cause).toBeInstanceOf(Error);
  });
});

describe('compareRuns on the 20-call pipeline', () => {
  it('finds every agent call record by its journal key (fan-out children, concurrent steps, the judge) and the sign-off', async () => {
    const model = liveModel((script) => new ScriptedModel(script));
    const judge = liveJudge((script) => new ScriptedModel(script));
    await pipeline20({ store, runId: 'big', root: mkdtempSync(join(dir, 'project-')), model, judge })().run();
    const recording = await exportRecording(store, 'big');
    const c = await compareRuns(recording, recording);
    const calls = c.nodes.filter((n) => n.kind === 'agentPrompt');
    expect(calls).toHaveLength(PIPELINE_CALLS);
    const keys = new Set(recording.calls.map((call) => call.key));
    expect(calls.filter((n) => n.a?.key === undefined || !keys.has(n.a.key)).map((n) => n.path)).toEqual([]);
    // Each answer is its own call's record: no two keys resolve to one record.
    expect(new Set(calls.map((n) => n.a?.key)).size).toBe(PIPELINE_CALLS);
    expect(calls.map((n) => n.path)).toContain('Pipeline › Research#2 › angle#1 › researcher');
    expect(c.a.tokens).toBe(recording.calls.reduce((sum, call) => sum + call.usage.inputTokens + call.usage.outputTokens + call.usage.cacheCreationInputTokens + call.usage.cacheReadInputTokens, 0));
    expect(c.a.signedOff).toEqual(['the report covers every topic']);
    expect(c.sameGoalsSignedOff).toBe(true);
    expect(c.counts).toEqual({ same: c.nodes.length, changed: 0, added: 0, missing: 0 });
  });
});
