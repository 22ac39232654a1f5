import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, type Budget, type WorkflowEvent } from 'groundswell';
import { httpError, json, malformedJson, ScriptedModel, type RecordedRequest, type ScriptStep } from 'groundswell/testing';
import { agentModel, pricedModel, systemText } from '../support/model-path.js';
import { budgetErrorIn } from './budget-helpers.js';

const Done = z.object({ done: z.boolean() });
const MODEL = 'claude-haiku-4-5';
const PRICE = { inputPerMTok: 1, outputPerMTok: 5 };

/** A scripted server that keeps what it answered: the tokens each answer reported. */
function server(answer: (request: RecordedRequest) => { step: (usage: { input_tokens: number; output_tokens: number }) => ScriptStep; usage: { input_tokens: number; output_tokens: number } }) {
  const reported: Array<{ input: number; output: number }> = [];
  const model = new ScriptedModel((request) => {
    const { step, usage } = answer(request);
    reported.push({ input: usage.input_tokens, output: usage.output_tokens });
    return step(usage);
  });
  return {
    model,
    requests: () => model.requests.length,
    tokens: () => reported.reduce((sum, r) => sum + r.input + r.output, 0),
    usd: () => reported.reduce((sum, r) => sum + (r.input * PRICE.inputPerMTok + r.output * PRICE.outputPerMTok) / 1_000_000, 0),
  };
}

describe('the grounding pass counts against the budgets above its call', () => {
  const isGrounding = (request: RecordedRequest): boolean => systemText(request.body)?.includes('Cite the evidence labels') === true;
  // Answers report what such requests really take: less input than estimated, output within max_tokens.
  const grounded = () =>
    server((request) =>
      isGrounding(request)
        ? { step: (usage) => json({ situationAssessment: 'Nothing is done yet.', evidenceRefs: ['[task]'] }, { usage }), usage: { input_tokens: 200, output_tokens: 100 } }
        : { step: (usage) => json({ done: true }, { usage }), usage: { input_tokens: 150, output_tokens: 50 } },
    );

  async function run(model: ScriptedModel, budget: Budget) {
    const agent = createAgent({
      name: 'worker',
      ...(await agentModel(model, { model: MODEL })),
      maxTokens: 200,
      pricing: { [pricedModel(MODEL)]: PRICE },
      trajectory: { checkpoint: 'adaptive', grounding: 'initial' },
    });
    const events: WorkflowEvent[] = [];
    const workflow = createWorkflow({ name: 'job', budget }, (ctx) =>
      ctx.step('work', () => agent.prompt(createPrompt({ user: 'Do the job', responseFormat: Done }))),
    );
    workflow.addObserver({ onEvent: (event) => events.push(event) });
    const outcome = await workflow.run().catch((error: unknown) => error);
    const [standing] = workflow.node.toJSON().budgets ?? [];
    const end = events.find((event) => event.type === 'agentPromptEnd');
    const callUsage = end?.type === 'agentPromptEnd' ? end.usage : undefined;
    const callTokens = callUsage === undefined ? undefined : callUsage.inputTokens + callUsage.outputTokens + callUsage.cacheCreationInputTokens + callUsage.cacheReadInputTokens;
    return { outcome, spent: standing?.spent, callTokens };
  }

  it('under modelRequests: 1 the grounding request takes the one request: the main request is refused, unsent', async () => {
    const at = grounded();
    const { outcome, spent, callTokens } = await run(at.model, { modelRequests: 1, tokens: 2_000 });
    expect(at.requests()).toBe(1);
    expect(budgetErrorIn(outcome)).toMatchObject({ dimension: 'modelRequests', limit: 1, spent: 1 });
    // The budget and the call's node both hold what the server answered.
    expect(spent).toMatchObject({ modelRequests: at.requests(), tokens: at.tokens() });
    expect(at.tokens()).toBe(300);
    expect(callTokens).toBe(at.tokens());
  });

  it('a grounding request that does not fit is never sent: the call fails before anything goes out', async () => {
    const at = grounded();
    // Less than the grounding request's worst case: its 512 tokens of output and its input.
    const { outcome, spent } = await run(at.model, { tokens: 700 });
    expect(at.requests()).toBe(0);
    expect(budgetErrorIn(outcome)).toMatchObject({ dimension: 'tokens', limit: 700, spent: 0 });
    expect(spent).toMatchObject({ modelRequests: 0, tokens: 0 });
  });

  it('under a budget that fits both, both are booked at what their answers reported, dollars included', async () => {
    const at = grounded();
    const { outcome, spent, callTokens } = await run(at.model, { modelRequests: 2, tokens: 10_000, usd: 1 });
    expect(outcome).toEqual({ done: true });
    expect(at.requests()).toBe(2);
    expect(spent).toMatchObject({ modelRequests: 2, tokens: at.tokens() });
    expect(at.tokens()).toBe(500);
    expect(spent?.usd).toBeCloseTo(at.usd(), 12);
    expect(callTokens).toBe(at.tokens());
  });
});

describe('a retry of the grounding request counts like the loop\'s retries', () => {
  it('under modelRequests: 2 a grounding request retried after a 429 takes both requests: the main request is refused, unsent', async () => {
    let sent = 0;
    const model = new ScriptedModel(() => {
      sent += 1;
      if (sent === 1) return httpError(429);
      return sent === 2 ? json({ situationAssessment: 'Nothing is done yet.', evidenceRefs: ['[task]'] }) : json({ done: true });
    });
    const agent = createAgent({
      name: 'worker',
      ...(await agentModel(model, { model: MODEL })),
      maxTokens: 200,
      trajectory: { checkpoint: 'adaptive', grounding: 'initial' },
    });
    const workflow = createWorkflow({ name: 'job', budget: { modelRequests: 2 } }, (ctx) =>
      ctx.step('work', () => agent.prompt(createPrompt({ user: 'Do the job', responseFormat: Done }))),
    );
    const outcome = await workflow.run().catch((error: unknown) => error);
    // Counted at the server: the failed attempt and its retry, and nothing more.
    expect(model.requests.length).toBe(2);
    expect(budgetErrorIn(outcome)).toMatchObject({ dimension: 'modelRequests', limit: 2, spent: 2 });
  });
});

describe('a reflection pass outside a workflow counts against the budgets of the call it reflects on', () => {
  const isReflection = (request: RecordedRequest): boolean => systemText(request.body)?.includes('You review an attempt that failed') === true;
  // The first attempt answers out of form (a retry may fix it), the reflection revises, the retry answers.
  const reflected = () => {
    let attempts = 0;
    return server((request) => {
      if (isReflection(request)) {
        return { step: (usage) => json({ critique: 'The answer was cut off.', revisedUser: null, guidance: 'Answer with the JSON only.' }, { usage }), usage: { input_tokens: 300, output_tokens: 80 } };
      }
      attempts += 1;
      const usage = { input_tokens: 150, output_tokens: 50 };
      return attempts === 1 ? { step: (u) => malformedJson(undefined, { usage: u }), usage } : { step: (u) => json({ done: true }, { usage: u }), usage };
    });
  };

  async function run(model: ScriptedModel, budget: Budget) {
    const agent = createAgent({ name: 'worker', ...(await agentModel(model, { model: MODEL })), maxTokens: 200, enableReflection: true, budget });
    return agent.prompt(createPrompt({ user: 'Do the job', responseFormat: Done })).catch((error: unknown) => error);
  }

  it('its request is one of the budget: under modelRequests: 2 the retry is refused, unsent', async () => {
    const at = reflected();
    const outcome = await run(at.model, { modelRequests: 2 });
    expect(at.requests()).toBe(2);
    expect(budgetErrorIn(outcome)).toMatchObject({ dimension: 'modelRequests', limit: 2, spent: at.requests() });
  });

  it('a reflection whose worst case does not fit is never sent: the call fails with the refusal as the cause', async () => {
    const at = reflected();
    // Fits an attempt's worst case (its input and 200 of output), not the reflection's (4,096 of output).
    const outcome = await run(at.model, { tokens: 2_000 });
    expect(at.requests()).toBe(1);
    expect(budgetErrorIn(outcome)).toMatchObject({ dimension: 'tokens', limit: 2_000, spent: at.tokens() });
  });
});
