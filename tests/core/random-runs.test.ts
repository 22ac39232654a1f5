import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  exportRun,
  parseRunExport,
  usageRollup,
  WorkflowTreeDebugger,
  type Agent,
  type TokenUsage,
  type WorkflowContext,
  type WorkflowNode,
} from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { LoadedNode } from '../../src/debugger/loaded-node.js';
import { ViewerModel } from '../../src/viewer/viewer-model.js';

/**
 * Whatever a run's shape (steps, agent calls in and out of steps, child workflows, fan-outs,
 * failures, logs) and however small its retention, the tree must still add up to what happened:
 * every token the model reported is in the root's total, live, in the debugger's stats, after an
 * export and reload, and on the viewer's root row. Random shapes from seeds; the model's answers
 * carry random usage, summed here as they are handed out.
 */

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Action =
  | { readonly kind: 'step' | 'call' | 'stepCall' | 'fail' | 'log' }
  | { readonly kind: 'child' | 'all' | 'stepChild'; readonly actions: readonly Action[] };

function program(next: () => number, depth: number): Action[] {
  const actions: Action[] = [];
  const length = 1 + Math.floor(next() * 7);
  for (let i = 0; i < length; i += 1) {
    const roll = next();
    if (roll < 0.2) actions.push({ kind: 'step' });
    else if (roll < 0.35) actions.push({ kind: 'call' });
    else if (roll < 0.5) actions.push({ kind: 'stepCall' });
    else if (roll < 0.57) actions.push({ kind: 'fail' });
    else if (roll < 0.64) actions.push({ kind: 'log' });
    else if (depth < 3 && roll < 0.78) actions.push({ kind: 'child', actions: program(next, depth + 1) });
    else if (depth < 3 && roll < 0.86) actions.push({ kind: 'stepChild', actions: program(next, depth + 1) });
    else if (depth < 3) actions.push({ kind: 'all', actions: program(next, depth + 1) });
    else actions.push({ kind: 'stepCall' });
  }
  return actions;
}

const Answer = z.object({ ok: z.boolean() });
const ask = createPrompt({ name: 'ask', user: 'Anything.', responseFormat: Answer });

async function perform(ctx: WorkflowContext, agent: Agent, action: Action, at: string): Promise<void> {
  switch (action.kind) {
    case 'step':
      await ctx.step(`step ${at}`, () => at);
      return;
    case 'call':
      await agent.prompt(ask);
      return;
    case 'stepCall':
      await ctx.step(`call ${at}`, () => agent.prompt(ask));
      return;
    case 'fail':
      await ctx.step(`fail ${at}`, () => Promise.reject(new Error(`failed at ${at}`))).catch(() => undefined);
      return;
    case 'log':
      ctx.logger.info(`log at ${at}`);
      return;
    case 'child':
      await ctx.spawnWorkflow(createWorkflow({ name: `child ${at}` }, (child) => performAll(child, agent, action.actions, at)));
      return;
    case 'stepChild':
      await ctx.step(`spawn ${at}`, () => ctx.spawnWorkflow(createWorkflow({ name: `child ${at}` }, (child) => performAll(child, agent, action.actions, at))));
      return;
    case 'all':
      await Promise.all(action.actions.map((each, i) => perform(ctx, agent, each, `${at}.${i}`)));
      return;
  }
}

async function performAll(ctx: WorkflowContext, agent: Agent, actions: readonly Action[], at: string): Promise<void> {
  for (let i = 0; i < actions.length; i += 1) await perform(ctx, agent, actions[i] as Action, `${at}.${i}`);
}

function tokensOf(usage: TokenUsage | undefined): [number, number, number] {
  return [usage?.inputTokens ?? 0, usage?.outputTokens ?? 0, usage?.cacheReadInputTokens ?? 0];
}

async function life(seed: number): Promise<void> {
  const next = random(seed);
  const expected: [number, number, number] = [0, 0, 0];
  let answered = 0;
  const model = new ScriptedModel(() => {
    const input = 1 + Math.floor(next() * 50);
    const output = Math.floor(next() * 20);
    const cached = next() < 0.3 ? Math.floor(next() * 9) : 0;
    expected[0] += input;
    expected[1] += output;
    expected[2] += cached;
    answered += 1;
    return json({ ok: true }, { usage: { input_tokens: input, output_tokens: output, cache_read_input_tokens: cached } });
  });
  const agent = createAgent({ name: 'asker', client: model.client() });
  const actions = program(next, 0);
  const retention = {
    maxChildrenPerNode: 1 + Math.floor(next() * 4),
    maxEventsPerNode: 1 + Math.floor(next() * 5),
    maxLogsPerNode: Math.floor(next() * 3),
  };
  const run = createWorkflow({ name: 'random', retention }, (ctx) => performAll(ctx, agent, actions, 'r'));
  let ends = 0;
  run.addObserver({
    onEvent(event) {
      if (event.type === 'agentPromptEnd') ends += 1;
    },
  });
  await run.run();

  const context = `seed ${seed}, retention ${JSON.stringify(retention)}, ${answered} calls`;
  const want = answered === 0 ? [0, 0, 0] : expected;
  expect(ends, context).toBe(answered);
  expect(tokensOf(usageRollup(run.node).get(run.node)), `${context}: live`).toEqual(want);
  expect(tokensOf(new WorkflowTreeDebugger(run).getStats().usage), `${context}: stats`).toEqual(want);
  const reloaded: WorkflowNode = LoadedNode.load(parseRunExport(JSON.stringify(exportRun(run.node))).root);
  expect(tokensOf(usageRollup(reloaded).get(reloaded)), `${context}: exported`).toEqual(want);
  const viewer = new ViewerModel();
  viewer.setRoot(run.node);
  expect(tokensOf(viewer.refresh().upserted[0]?.[10]), `${context}: viewer`).toEqual(want);
}

// 150 runs take about a second here; 4,000 passed once.
describe('random runs under small retention', () => {
  it('keep every token the model reported in the root total: live, in the stats, exported and on the viewer', { timeout: 120_000 }, async () => {
    for (let seed = 1; seed <= 150; seed += 1) await life(seed);
  });
});
