import { expect } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, type Workflow, type WorkflowContext } from 'groundswell';
import { exportRecording, type Recording, type RunStore } from 'groundswell/durable';
import { json, ScriptedModel } from 'groundswell/testing';

const Answer = z.object({ n: z.number() });
export const MODEL = 'claude-sonnet-5-5';
// $3 per million input tokens, $15 per million output tokens.
const PRICE = { inputPerMTok: 3, outputPerMTok: 15 };
export const cost = (input: number, output: number): number => (input * 3 + output * 15) / 1_000_000;

/** One scripted answer: the value and the tokens it spent. */
export interface Reply {
  readonly n: number;
  readonly input: number;
  readonly output: number;
}

export const BASE: readonly Reply[] = [
  { n: 1, input: 100, output: 20 },
  { n: 2, input: 100, output: 20 },
  { n: 3, input: 200, output: 60 },
];
export const tokensOf = (replies: readonly Reply[]): number => replies.reduce((sum, r) => sum + r.input + r.output, 0);
export const costOf = (replies: readonly Reply[]): number => replies.reduce((sum, r) => sum + cost(r.input, r.output), 0);

/**
 * Two `ask` steps, an optional `check`, then `summarize`, one agent call each; the answers and
 * their usage are scripted, so a test knows every token and cent.
 */
export function pipeline(store: RunStore, runId: string, model: ScriptedModel, check = false): Workflow<number> {
  const agent = createAgent({ name: 'counter', client: model.client(), model: MODEL, pricing: { [MODEL]: PRICE } });
  const ask = (user: string) => agent.prompt(createPrompt({ user, responseFormat: Answer }));
  return createWorkflow({ name: 'Pipeline', durable: { store, runId } }, async (ctx: WorkflowContext) => {
    let total = (await ctx.step('ask', () => ask('count the apples'))).n;
    total += (await ctx.step('ask', () => ask('count the pears'))).n;
    if (check) total += (await ctx.step('check', () => ask('check the count'))).n;
    return total + (await ctx.step('summarize', () => ask('summarize'))).n;
  });
}

/** Runs the pipeline with `replies` scripted and returns its recording. */
export async function record(store: RunStore, runId: string, replies: readonly Reply[], check = false): Promise<Recording> {
  const model = new ScriptedModel(replies.map((r) => json({ n: r.n }, { usage: { input_tokens: r.input, output_tokens: r.output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } })));
  await pipeline(store, runId, model, check).run();
  expect(model.requests).toHaveLength(replies.length);
  return exportRecording(store, runId);
}
