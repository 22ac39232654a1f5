import { describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { Answer } from '../support/agent-helpers.js';
import { agentModel, pricedModel } from '../support/model-path.js';
import { budgetErrorIn } from './budget-helpers.js';

const MODELS = ['claude-test-a', 'claude-test-b'] as const;
const PRICE = { inputPerMTok: 3, outputPerMTok: 15 };
const CAP = 0.05;
const CALLS = 50;
const MAX_TOKENS = 20;
const OUTPUT = 10;
// About 400 characters sent with every request, so input is most of what a request costs.
const SYSTEM = 'You answer one short question at a time. '.repeat(10);

/**
 * A server whose answers report three times the input a request's length / 4 suggests (a hidden
 * tool prompt, dense JSON), and what they cost at PRICE. It notes, per model, how many requests
 * arrived before it had answered that model once.
 */
function denseServer() {
  let cost = 0;
  const answered = new Map<string, number>();
  const beforeFirstAnswer = new Map<string, number>();
  const model = new ScriptedModel((request) => {
    const name = request.model ?? '';
    if ((answered.get(name) ?? 0) === 0) beforeFirstAnswer.set(name, (beforeFirstAnswer.get(name) ?? 0) + 1);
    answered.set(name, (answered.get(name) ?? 0) + 1);
    const input = 3 * Math.ceil(JSON.stringify(request.body).length / 4);
    cost += (input * PRICE.inputPerMTok + OUTPUT * PRICE.outputPerMTok) / 1_000_000;
    return json({ answer: 'ok' }, { usage: { input_tokens: input, output_tokens: OUTPUT }, delayMs: 2 });
  });
  return { model, beforeFirstAnswer, spent: () => cost };
}

describe('input denser than length / 4', () => {
  it('50 calls, 10 at a time, on two models under $0.05: what the server reports never passes the cap, and each model gets one request until it first answers', async () => {
    const server = denseServer();
    const agents = await Promise.all(
      MODELS.map(async (id) =>
        createAgent({ name: `worker-${id}`, ...(await agentModel(server.model, { model: id })), system: SYSTEM, maxTokens: MAX_TOKENS, pricing: { [pricedModel(id)]: PRICE } }),
      ),
    );
    const workflow = createWorkflow({ name: 'dense', budget: { usd: CAP } }, (ctx) =>
      ctx.map(
        Array.from({ length: CALLS }, (_, i) => i),
        (i) => ctx.step(`call ${i}`, () => (agents[i % 2] as (typeof agents)[number]).prompt(createPrompt({ user: `call ${i}`, responseFormat: Answer }))),
        { concurrency: 10, settle: 'all' },
      ),
    );
    const outcomes = await workflow.run();

    expect(server.spent()).toBeLessThanOrEqual(CAP + 1e-12);
    expect([...server.beforeFirstAnswer.values()]).toEqual([1, 1]);
    const answered = outcomes.filter((o) => o.status === 'fulfilled').length;
    // The cap binds: answers cost about $0.0015, so about thirty fit.
    expect(answered).toBeGreaterThan(20);
    expect(answered).toBeLessThan(CALLS);
    expect(server.model.requests.length).toBe(answered);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(budgetErrorIn(outcome.error)?.dimension).toBe('usd');
    }
  });
});
