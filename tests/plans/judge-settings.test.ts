import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, usageRollup, type WorkflowNode } from 'groundswell';
import { completeGoalTool, signOffGoal, type JudgeSettings } from 'groundswell/plans';
import { LruCacheStore } from 'groundswell/cache';
import { ScriptedModel, json, toolUse, type ResponseOptions } from 'groundswell/testing';
import { agentModel } from '../support/model-path.js';

const PLAN = `# Ship the report

## Goals

1. [/] goal: the report lists every team
  - discriminator: report.md has one row per team
  - evidence:
    - report.md: "| alpha | 3 |" and "| beta | 0 |"

## Log
`;

const PRICING = {
  'worker-model': { inputPerMTok: 3, outputPerMTok: 15 },
  'judge-model': { inputPerMTok: 1, outputPerMTok: 5 },
};

const tokens = (input: number, output: number): ResponseOptions => ({
  usage: { input_tokens: input, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
});

const review = (verdict: string, opts: ResponseOptions = {}) => json({ review: `Checked.\nVERDICT: ${verdict}\nmissing: ${verdict === 'reject' ? 'provenance' : ''}` }, opts);

function project() {
  const root = mkdtempSync(join(tmpdir(), 'gs-judge-settings-'));
  writeFileSync(join(root, 'PLAN.md'), PLAN);
  writeFileSync(join(root, 'report.md'), '| alpha | 3 |\n| beta | 0 |\n');
  return { root, planPath: join(root, 'PLAN.md') };
}

function find(node: WorkflowNode, name: string): WorkflowNode | undefined {
  if (node.name === name) return node;
  for (const child of node.children) {
    const found = find(child, name);
    if (found !== undefined) return found;
  }
  return undefined;
}

describe('judge settings', () => {
  it('the judge is built with the given model, maxTokens and pricing, and its cost rolls up into the root', async () => {
    const { root, planPath } = project();
    const judge = new ScriptedModel([toolUse('read_file', { path: 'report.md' }, tokens(1000, 40)), review('accept', tokens(2000, 60))]);
    const worker = new ScriptedModel([toolUse('CompleteGoal', { goal: 'the report lists every team' }, tokens(100, 10)), json({ done: true }, tokens(200, 5))]);
    const judgeSettings: JudgeSettings = { ...(await agentModel(judge, { model: 'judge-model' })), maxTokens: 777, pricing: PRICING };
    const agent = createAgent({
      name: 'worker',
      ...(await agentModel(worker, { model: 'worker-model' })),
      pricing: PRICING,
      tools: [completeGoalTool({ planPath, root, judge: judgeSettings })],
    });
    const wf = createWorkflow({ name: 'work' }, (ctx) =>
      ctx.step('finish', () => agent.prompt(createPrompt({ user: 'Finish', responseFormat: z.object({ done: z.boolean() }) }))),
    );
    await wf.run();
    judge.assertComplete();

    expect(judge.requests.map((r) => [r.body.model, r.body.max_tokens])).toEqual([
      ['judge-model', 777],
      ['judge-model', 777],
    ]);
    const judgeCost = (3000 * 1 + 100 * 5) / 1_000_000;
    const workerCost = (300 * 3 + 15 * 15) / 1_000_000;
    const total = usageRollup(wf.node).get(wf.node);
    expect(total).toMatchObject({ inputTokens: 3300, outputTokens: 115 });
    expect(total?.costUsd).toBeCloseTo(judgeCost + workerCost, 12);
    // The judge's call sits inside the step it ran in, so the step's total includes it too.
    const step = find(wf.node, 'finish');
    expect(step).toBeDefined();
    expect(find(step as WorkflowNode, 'judge: sign-off')).toBeDefined();
    expect(usageRollup(wf.node).get(step as WorkflowNode)?.costUsd).toBeCloseTo(judgeCost + workerCost, 12);
  });

  it('signOffGoal called from a step: the judge tokens and cost land in that step', async () => {
    const { root, planPath } = project();
    const judge = new ScriptedModel([review('accept', tokens(500, 20))]);
    const judgeModel = await agentModel(judge, { model: 'judge-model' });
    const wf = createWorkflow({ name: 'direct' }, (ctx) =>
      ctx.step('sign off', () => signOffGoal({ planPath, root, judge: { ...judgeModel, pricing: PRICING } }, 'the report lists every team')),
    );
    await wf.run();
    const step = find(wf.node, 'sign off');
    expect(step).toBeDefined();
    const usage = usageRollup(wf.node).get(step as WorkflowNode);
    expect(usage).toMatchObject({ inputTokens: 500, outputTokens: 20 });
    expect(usage?.costUsd).toBeCloseTo((500 * 1 + 20 * 5) / 1_000_000, 12);
  });

  it('without pricing the judge tokens still roll up, with no cost', async () => {
    const { root, planPath } = project();
    const judge = new ScriptedModel([review('accept', tokens(500, 20))]);
    const judgeModel = await agentModel(judge);
    const wf = createWorkflow({ name: 'unpriced' }, (ctx) =>
      ctx.step('sign off', () => signOffGoal({ planPath, root, judge: judgeModel }, 'the report lists every team')),
    );
    await wf.run();
    const total = usageRollup(wf.node).get(wf.node);
    expect(total).toMatchObject({ inputTokens: 500, outputTokens: 20 });
    expect(total?.costUsd).toBeUndefined();
  });

  it('enableCache with a cache store answers an identical second review from the cache', async () => {
    const { root, planPath } = project();
    // One scripted answer only: a second model request would fail the sign-off as a judge failure.
    const judge = new ScriptedModel([review('reject')]);
    const options = { planPath, root, judge: { ...(await agentModel(judge)), enableCache: true, cache: new LruCacheStore() } };
    const first = await signOffGoal(options, 'the report lists every team');
    const second = await signOffGoal(options, 'the report lists every team');
    expect([first.verdict, second.verdict]).toEqual(['reject', 'reject']);
    expect(second.judgeFailed).toBe(false);
    expect(judge.requests).toHaveLength(1);
  });

  it('judge settings are validated at creation', () => {
    const make = (judge: unknown) => () => completeGoalTool({ planPath: 'PLAN.md', root: '.', judge } as Parameters<typeof completeGoalTool>[0]);
    expect(make({ maxTokens: 0 })).toThrow(/options\.judge\.maxTokens must be a positive integer, got 0/);
    expect(make({ pricing: { m: { inputPerMTok: -1, outputPerMTok: 1 } } })).toThrow(/options\.judge\.pricing\.m\.inputPerMTok/);
    expect(make({ enableCache: 'yes' })).toThrow(/options\.judge\.enableCache/);
    expect(make({ cache: {} })).toThrow(/options\.judge\.cache must be a Cache store/);
    expect(make({ temperature: 0.2 })).toThrow(/options\.judge has an unknown key "temperature"/);
    expect(make({ model: 'm', maxTokens: 100, pricing: PRICING, enableCache: false })).not.toThrow();
  });
});
