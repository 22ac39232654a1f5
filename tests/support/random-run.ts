import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, type Agent, type Budget, type Workflow, type WorkflowContext } from 'groundswell';
import type { RunStore } from 'groundswell/durable';
import { json, ScriptedModel, stream, toolUse, type RecordedRequest } from 'groundswell/testing';
import { seeded } from './seeded.js';

type Action =
  | { readonly kind: 'step' | 'call' | 'stepCall' | 'fail' | 'log' | 'replace' }
  | { readonly kind: 'child' | 'all' | 'stepChild' | 'failChild'; readonly actions: readonly Action[] };

function program(next: () => number, depth: number, replace: boolean): Action[] {
  const actions: Action[] = [];
  const length = 1 + Math.floor(next() * 7);
  for (let i = 0; i < length; i += 1) {
    const roll = next();
    if (roll < 0.2) actions.push({ kind: 'step' });
    else if (roll < 0.35) actions.push({ kind: 'call' });
    else if (roll < 0.5) actions.push({ kind: 'stepCall' });
    else if (roll < 0.57) actions.push({ kind: 'fail' });
    else if (roll < 0.6) actions.push({ kind: 'log' });
    else if (roll < 0.64) actions.push({ kind: replace ? 'replace' : 'log' });
    else if (depth < 3 && roll < 0.78) actions.push({ kind: 'child', actions: program(next, depth + 1, replace) });
    else if (depth < 3 && roll < 0.83) actions.push({ kind: 'stepChild', actions: program(next, depth + 1, replace) });
    else if (depth < 3 && roll < 0.87) actions.push({ kind: 'failChild', actions: program(next, depth + 1, replace) });
    else if (depth < 3) actions.push({ kind: 'all', actions: program(next, depth + 1, replace) });
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
    case 'replace':
      // Asks again and hangs the workflow's last call beneath the new one (refused before any call).
      await ctx.step(`improve ${at}`, () => ctx.replaceLastPromptResult(ask, agent)).catch(() => undefined);
      return;
    case 'child':
      await ctx.spawnWorkflow(createWorkflow({ name: `child ${at}` }, (child) => performAll(child, agent, action.actions, at)));
      return;
    case 'stepChild':
      await ctx.step(`spawn ${at}`, () => ctx.spawnWorkflow(createWorkflow({ name: `child ${at}` }, (child) => performAll(child, agent, action.actions, at))));
      return;
    case 'failChild':
      // A child workflow that does its work, then fails; the parent goes on.
      await ctx
        .spawnWorkflow(
          createWorkflow({ name: `failing ${at}` }, async (child) => {
            await performAll(child, agent, action.actions, at);
            throw new Error(`child failed at ${at}`);
          }),
        )
        .catch(() => undefined);
      return;
    case 'all':
      await Promise.all(action.actions.map((each, i) => perform(ctx, agent, each, `${at}.${i}`)));
      return;
  }
}

async function performAll(ctx: WorkflowContext, agent: Agent, actions: readonly Action[], at: string): Promise<void> {
  for (let i = 0; i < actions.length; i += 1) await perform(ctx, agent, actions[i] as Action, `${at}.${i}`);
}

/** Tokens handed out by the model so far: input, output and cache reads; its answers and turns. */
export interface HandedOut {
  input: number;
  output: number;
  cached: number;
  /** Final answers: one per agent call that finished. */
  answers: number;
  /** Every response, a tool call's turn included: one per model request. */
  turns: number;
}

/** The last message of a request is the result of a tool the model called. */
function afterTool(request: RecordedRequest): boolean {
  const last = request.body.messages?.at(-1);
  return Array.isArray(last?.content) && last.content.some((block) => block.type === 'tool_result');
}

export interface RandomRunOptions {
  /** Run it durably in `store` under `runId`. */
  readonly durable?: { readonly store: RunStore; readonly runId: string };
  /** Stream every answer in pieces of random size, and the run's text with it (`streamText`). */
  readonly streamed?: boolean;
  /**
   * Whether the run replaces calls (default true). Which call is a workflow's last depends on
   * which answered last, so a run that replaces calls beside others is not the same run twice.
   */
  readonly replace?: boolean;
  /** The agent caches its answers (an identical call is answered from the cache). */
  readonly cached?: boolean;
  /** A budget on the whole run. */
  readonly budget?: Budget;
}

/**
 * A run of random shape from `seed` (steps, agent calls in and out of steps, some calling a tool,
 * replaced calls, child workflows (some failing), fan-outs, caught failures, logs) under small random retention,
 * not started. Each of the model's responses carries random usage, added to `handedOut` as given.
 */
export function randomRun(seed: number, options: RandomRunOptions = {}): { run: Workflow<void>; handedOut: HandedOut; retention: object } {
  const next = seeded(seed);
  const handedOut: HandedOut = { input: 0, output: 0, cached: 0, answers: 0, turns: 0 };
  const model = new ScriptedModel((request) => {
    const input = 1 + Math.floor(next() * 50);
    const output = Math.floor(next() * 20);
    const cached = next() < 0.3 ? Math.floor(next() * 9) : 0;
    handedOut.input += input;
    handedOut.output += output;
    handedOut.cached += cached;
    handedOut.turns += 1;
    const usage = { input_tokens: input, output_tokens: output, cache_read_input_tokens: cached };
    // A call first asks for its tool now and then; the answer follows the tool's result.
    if (!afterTool(request) && next() < 0.2) return toolUse('note', { text: `turn ${handedOut.turns}` }, { usage });
    handedOut.answers += 1;
    const answer = json({ ok: true }, { usage });
    return options.streamed === true ? stream(answer, { chunkSize: 1 + Math.floor(next() * 6) }) : answer;
  });
  const note = defineTool({ name: 'note', description: 'Notes a line.', input: z.object({ text: z.string() }), execute: ({ text }) => `noted: ${text}` });
  const agent = createAgent({ name: 'asker', client: model.client(), tools: [note], ...(options.cached === true ? { enableCache: true } : {}) });
  const actions = program(next, 0, options.replace !== false);
  const retention = {
    maxChildrenPerNode: 1 + Math.floor(next() * 4),
    maxEventsPerNode: 1 + Math.floor(next() * 5),
    maxLogsPerNode: Math.floor(next() * 3),
  };
  const config = {
    name: 'random',
    retention,
    ...(options.durable === undefined ? {} : { durable: options.durable }),
    ...(options.streamed === true ? { streamText: true } : {}),
    ...(options.budget === undefined ? {} : { budget: options.budget }),
  };
  const run = createWorkflow(config, (ctx) => performAll(ctx, agent, actions, 'r'));
  return { run, handedOut, retention };
}
