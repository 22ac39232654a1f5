import { describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow, type Pricing } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { Answer } from '../support/agent-helpers.js';
import { eventsOfType, record } from '../support/events.js';
import { agentModel, pricedModel } from '../support/model-path.js';

const MODEL = 'claude-test-1';
const PRICE = { inputPerMTok: 3, outputPerMTok: 15 };

/** Two calls of one agent in one workflow; every event the workflow emitted. */
async function twoCalls(pricing: Pricing) {
  const model = new ScriptedModel([json({ answer: 'one' }), json({ answer: 'two' })]);
  const agent = createAgent({ name: 'priced', ...(await agentModel(model, { model: MODEL })), pricing });
  const workflow = createWorkflow({ name: 'costs' }, async (ctx) => {
    await ctx.step('first', () => agent.prompt(createPrompt({ user: 'one', responseFormat: Answer })));
    await ctx.step('second', () => agent.prompt(createPrompt({ user: 'two', responseFormat: Answer })));
  });
  const recording = record(workflow);
  await workflow.run();
  model.assertComplete();
  return recording.events;
}

describe('pricing that has no price for the call model', () => {
  it('warns once per agent with a pricingMissing event naming the agent and the model', async () => {
    const events = await twoCalls({ 'some-other-model': PRICE });
    expect(eventsOfType(events, 'pricingMissing').map(({ agentName, model }) => ({ agentName, model }))).toEqual([
      { agentName: 'priced', model: pricedModel(MODEL) },
    ]);
  });

  it('does not warn when the pricing covers the model', async () => {
    const events = await twoCalls({ [MODEL]: PRICE });
    expect(eventsOfType(events, 'pricingMissing')).toEqual([]);
  });
});
