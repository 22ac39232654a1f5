import { describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { Answer } from '../support/agent-helpers.js';
import { eventsOfType, record } from '../support/events.js';
import { agentModel, pricedModel } from '../support/model-path.js';
import { between, budgetErrorIn } from './budget-helpers.js';
import { seeded } from '../support/seeded.js';

const MODEL = 'claude-test-1';
const PRICE = { inputPerMTok: 3, outputPerMTok: 15 };
const LIMIT_USD = 0.1;
const CHILDREN = 50;
const MAX_TOKENS = 1_000;

/**
 * One trial: 50 children, 10 at a time, each one agent call, all under one $0.10 budget. The
 * scripted answers use a seeded share of max_tokens and a few input tokens (below the request's
 * estimate), and arrive after seeded delays so the calls interleave differently per seed.
 */
async function trial(seed: number) {
  const random = seeded(seed);
  const plan = Array.from({ length: CHILDREN }, () => ({
    input: between(random, 5, 30),
    output: between(random, 50, MAX_TOKENS),
    delayMs: between(random, 0, 3),
  }));
  let answered = 0;
  const model = new ScriptedModel((request) => {
    const child = Number(/child (\d+)/.exec(JSON.stringify(request.body.messages))?.[1]);
    const step = plan[child] ?? { input: 1, output: 1, delayMs: 0 };
    answered += 1;
    return json({ answer: `done ${child}` }, { usage: { input_tokens: step.input, output_tokens: step.output }, delayMs: step.delayMs });
  });
  const agent = createAgent({ name: 'worker', ...(await agentModel(model, { model: MODEL })), maxTokens: MAX_TOKENS, pricing: { [pricedModel(MODEL)]: PRICE } });
  const workflow = createWorkflow({ name: 'fan-out', budget: { usd: LIMIT_USD } }, (ctx) =>
    ctx.map(
      plan.map((_, i) => i),
      (i) => ctx.step(`child ${i}`, () => agent.prompt(createPrompt({ user: `child ${i}`, responseFormat: Answer }))),
      { concurrency: 10, settle: 'all' },
    ),
  );
  const recording = record(workflow);
  const outcomes = await workflow.run();
  const spent = eventsOfType(recording.events, 'modelRequest').reduce((sum, event) => sum + (event.usage.costUsd ?? 0), 0);
  return { outcomes, spent, answered, events: recording.events };
}

describe('a fan-out sharing one budget', () => {
  it('never spends more than $0.10 over 100 seeded trials; refused children fail with BudgetExceededError, the rest keep their results', async () => {
    for (let seed = 1; seed <= 100; seed += 1) {
      const { outcomes, spent, answered, events } = await trial(seed);
      expect(spent, `seed ${seed}`).toBeLessThanOrEqual(LIMIT_USD + 1e-9);
      const done = outcomes.filter((o) => o.status === 'fulfilled');
      const refused = outcomes.filter((o) => o.status === 'rejected');
      expect(done.length + refused.length).toBe(CHILDREN);
      // Both happen in every trial: the budget holds about a dozen calls, not fifty.
      expect(done.length, `seed ${seed}`).toBeGreaterThan(0);
      expect(refused.length, `seed ${seed}`).toBeGreaterThan(0);
      expect(answered, `seed ${seed}`).toBe(done.length);
      for (const outcome of done) expect(outcome.value).toEqual({ answer: `done ${outcome.item}` });
      for (const outcome of refused) {
        const error = budgetErrorIn(outcome.error);
        expect(error?.dimension, `seed ${seed}`).toBe('usd');
        expect(error?.budgetPath).toBe('fan-out');
        expect(error?.limit).toBe(LIMIT_USD);
        // A refusal is a request that could have passed the limit, given what was spent and held.
        expect((error?.spent ?? 0) + (error?.reserved ?? 0) + (error?.needed ?? 0)).toBeGreaterThan(LIMIT_USD);
      }
      expect(eventsOfType(events, 'budgetExceeded')).toHaveLength(refused.length);
      expect(eventsOfType(events, 'budgetWarning').map((e) => e.dimension)).toEqual(['usd']);
    }
  }, 120_000);
});
