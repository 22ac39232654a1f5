import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow } from 'groundswell';
import { httpError, json, ScriptedModel } from 'groundswell/testing';
import { Answer } from '../support/agent-helpers.js';
import { BOTH_PATHS, closeServers, rootBudget } from './both-paths.js';
import { budgetErrorIn } from './budget-helpers.js';

afterEach(closeServers);

/** The HTTP status of an API error: the Anthropic SDK's `status`, the AI SDK's `statusCode`. */
function statusOf(error: unknown): unknown {
  const e = error as { status?: unknown; statusCode?: unknown } | undefined;
  return e?.status ?? e?.statusCode;
}

describe.each(BOTH_PATHS)('retries count as model requests ($name)', (path) => {
  const flaky = (): ScriptedModel => new ScriptedModel([httpError(429), httpError(500), json({ answer: 'ok' })]);

  async function askUnder(script: ScriptedModel, modelRequests: number) {
    const agent = createAgent({ name: 'asker', ...(await path.agentModel(script)) });
    const workflow = createWorkflow({ name: 'retries', budget: { modelRequests } }, (ctx) =>
      ctx.step('ask', () => agent.prompt(createPrompt({ user: 'q', responseFormat: Answer }))),
    );
    const outcome = await workflow.run().then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    return { workflow, outcome };
  }

  it('under modelRequests: 1 the server receives 1 request; the retry is refused, its cause the 429', async () => {
    const script = flaky();
    const { workflow, outcome } = await askUnder(script, 1);
    expect(script.requests).toHaveLength(1);
    const refusal = budgetErrorIn('error' in outcome ? outcome.error : undefined);
    // The first attempt was still held when its retry asked.
    expect(refusal).toMatchObject({ dimension: 'modelRequests', limit: 1, spent: 0, reserved: 1, needed: 1 });
    expect(statusOf(refusal?.cause)).toBe(429);
    expect(rootBudget(workflow).spent.modelRequests).toBe(1);
  });

  it('under modelRequests: 2 the server receives 2; the refused retry\'s cause is the 500', async () => {
    const script = flaky();
    const { workflow, outcome } = await askUnder(script, 2);
    expect(script.requests).toHaveLength(2);
    const refusal = budgetErrorIn('error' in outcome ? outcome.error : undefined);
    expect(refusal).toMatchObject({ dimension: 'modelRequests', limit: 2, spent: 1, reserved: 1, needed: 1 });
    expect(statusOf(refusal?.cause)).toBe(500);
    expect(rootBudget(workflow).spent.modelRequests).toBe(2);
  });

  it('under modelRequests: 3 the server receives 3 and the call answers; all 3 are counted', async () => {
    const script = flaky();
    const { workflow, outcome } = await askUnder(script, 3);
    expect(outcome).toEqual({ value: { answer: 'ok' } });
    expect(script.requests).toHaveLength(3);
    expect(rootBudget(workflow).spent.modelRequests).toBe(3);
  });

  it('an agent budget outside a workflow counts the retries too', async () => {
    const script = flaky();
    const agent = createAgent({ name: 'alone', ...(await path.agentModel(script)), budget: { modelRequests: 1 } });
    const error = await agent.prompt(createPrompt({ user: 'q', responseFormat: Answer })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(script.requests).toHaveLength(1);
    expect(statusOf(budgetErrorIn(error)?.cause)).toBe(429);
  });
});
