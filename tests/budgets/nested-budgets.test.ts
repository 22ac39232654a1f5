import { describe, expect, it } from 'vitest';
import { BudgetExceededError, createAgent, createPrompt, createWorkflow, UsageError, WorkflowTreeDebugger, type Budget } from 'groundswell';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { adder, Answer } from '../support/agent-helpers.js';
import { eventsOfType, record } from '../support/events.js';
import { agentModel, pricedModel } from '../support/model-path.js';
import { budgetErrorIn } from './budget-helpers.js';

const MODEL = 'claude-test-1';
const ask = (user: string) => createPrompt({ user, responseFormat: Answer });

/** Two agent calls in one step; `workflowBudget` on the workflow, `stepBudget` on the step. */
async function twoCalls(workflowBudget: Budget | undefined, stepBudget: Budget | undefined) {
  const model = new ScriptedModel([json({ answer: 'one' }), json({ answer: 'two' })]);
  const agent = createAgent({ name: 'worker', ...(await agentModel(model)) });
  const workflow = createWorkflow({ name: 'outer', ...(workflowBudget ? { budget: workflowBudget } : {}) }, (ctx) =>
    ctx.step(
      'inner',
      async () => [await agent.prompt(ask('one')), await agent.prompt(ask('two'))],
      stepBudget ? { budget: stepBudget } : {},
    ),
  );
  const recording = record(workflow);
  const error = await workflow.run().then(() => undefined, (e: unknown) => e);
  return { error, model, events: recording.events, workflow };
}

describe('nested budgets', () => {
  it('the inner budget, when tighter, refuses the request and names itself', async () => {
    const { error, model, events } = await twoCalls({ modelRequests: 10 }, { modelRequests: 1 });
    const budget = budgetErrorIn(error);
    expect(budget).toBeInstanceOf(BudgetExceededError);
    expect(budget).toMatchObject({ budgetPath: 'outer / inner', dimension: 'modelRequests', limit: 1, spent: 1, reserved: 0, needed: 1 });
    expect(budget?.message).toContain('step "inner"');
    // The refused request was never sent.
    expect(model.requests).toHaveLength(1);
    expect(eventsOfType(events, 'budgetExceeded')).toMatchObject([{ budgetPath: 'outer / inner', dimension: 'modelRequests', limit: 1 }]);
  });

  it('the outer budget, when tighter, refuses the request although the inner one has room', async () => {
    const { error, model } = await twoCalls({ modelRequests: 1 }, { modelRequests: 10 });
    expect(budgetErrorIn(error)).toMatchObject({ budgetPath: 'outer', dimension: 'modelRequests', limit: 1, spent: 1 });
    expect(model.requests).toHaveLength(1);
  });

  it('within every budget, both calls run', async () => {
    const { error, model } = await twoCalls({ modelRequests: 2 }, { modelRequests: 2 });
    expect(error).toBeUndefined();
    expect(model.requests).toHaveLength(2);
  });

  it("a spawned child workflow's calls count against its parent's step budget, and its own budget holds too", async () => {
    const model = new ScriptedModel([json({ answer: 'one' }), json({ answer: 'two' })]);
    const agent = createAgent({ name: 'worker', ...(await agentModel(model)) });
    const child = createWorkflow({ name: 'child', budget: { modelRequests: 5 } }, (ctx) =>
      ctx.step('calls', async () => [await agent.prompt(ask('one')), await agent.prompt(ask('two'))]),
    );
    const parent = createWorkflow({ name: 'parent' }, (ctx) => ctx.step('spawn', () => ctx.spawnWorkflow(child), { budget: { modelRequests: 1 } }));
    const error = await parent.run().catch((e: unknown) => e);
    expect(budgetErrorIn(error)).toMatchObject({ budgetPath: 'parent / spawn', dimension: 'modelRequests', limit: 1, spent: 1 });
    expect(model.requests).toHaveLength(1);
  });

  it('the tree debugger shows the refusal on the budget\'s node with its limit, spent and reserved', async () => {
    const { workflow } = await twoCalls(undefined, { modelRequests: 1 });
    expect(new WorkflowTreeDebugger(workflow).toTreeString()).toContain('budget exceeded: modelRequests limit 1, spent 1, reserved 0, needed 1');
  });
});

describe('the dimensions', () => {
  it('tokens: a request whose worst case (input estimate + maxTokens) could pass the limit is not sent', async () => {
    const model = new ScriptedModel([json({ answer: 'never' })]);
    const agent = createAgent({ name: 'big', ...(await agentModel(model)), maxTokens: 2_000, budget: { tokens: 1_000 } });
    const error = await agent.prompt(ask('hello')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({ dimension: 'tokens', limit: 1_000, spent: 0 });
    expect((error as BudgetExceededError).needed).toBeGreaterThan(2_000);
    expect(model.requests).toHaveLength(0);
  });

  it('tokens settle to the actual usage, so later requests fit again', async () => {
    const usage = { input_tokens: 40, output_tokens: 10 };
    const model = new ScriptedModel([json({ answer: 'a' }, { usage }), json({ answer: 'b' }, { usage }), json({ answer: 'c' }, { usage })]);
    const agent = createAgent({ name: 'small', ...(await agentModel(model)), maxTokens: 300 });
    // Each request reserves ~300 + its input estimate, but spends 50: three fit under 1000 one after another.
    const workflow = createWorkflow({ name: 'w', budget: { tokens: 1_000 } }, (ctx) =>
      ctx.step('s', async () => [await agent.prompt(ask('a')), await agent.prompt(ask('b')), await agent.prompt(ask('c'))]),
    );
    await expect(workflow.run()).resolves.toHaveLength(3);
  });

  it('toolCalls: the call that would pass the limit fails the agent call; the tool ran only within it', async () => {
    const { tool, calls } = adder();
    const model = new ScriptedModel([toolUse('add', { a: 1, b: 2 }), toolUse('add', { a: 3, b: 4 }), json({ answer: '10' })]);
    const agent = createAgent({ name: 'tools', ...(await agentModel(model)), tools: [tool] });
    const workflow = createWorkflow({ name: 'w' }, (ctx) => ctx.step('s', () => agent.prompt(ask('add')), { budget: { toolCalls: 1 } }));
    const error = await workflow.run().catch((e: unknown) => e);
    expect(budgetErrorIn(error)).toMatchObject({ dimension: 'toolCalls', limit: 1, spent: 1, needed: 1 });
    expect(calls).toEqual([{ a: 1, b: 2 }]);
    expect(model.requests).toHaveLength(2);
  });

  it('usd: priced at the model\'s price; a warning once spent plus reserved reaches warnAt', async () => {
    const model = new ScriptedModel([json({ answer: 'a' }, { usage: { input_tokens: 10, output_tokens: 100 } })]);
    const agent = createAgent({ name: 'priced', ...(await agentModel(model, { model: MODEL })), maxTokens: 1_000, pricing: { [pricedModel(MODEL)]: { inputPerMTok: 3, outputPerMTok: 15 } } });
    // The worst case is 1000 output tokens at $15/MTok = $0.015 plus the input: past half of $0.02.
    const workflow = createWorkflow({ name: 'w', budget: { usd: 0.02, warnAt: 0.5 } }, (ctx) => ctx.step('s', () => agent.prompt(ask('a'))));
    const recording = record(workflow);
    await workflow.run();
    const warnings = eventsOfType(recording.events, 'budgetWarning');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ dimension: 'usd', limit: 0.02, spent: 0, warnAt: 0.5 });
    expect(warnings[0]?.reserved).toBeGreaterThan(0.015);
  });

  it('usd with a model that has no price is a UsageError at the first call that needs it', async () => {
    const model = new ScriptedModel([json({ answer: 'never' })]);
    const agent = createAgent({ name: 'unpriced', ...(await agentModel(model)), budget: { usd: 1 } });
    const error = await agent.prompt(ask('a')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/usd budget of agent "unpriced".*needs a price/);
    expect(model.requests).toHaveLength(0);
  });
});

describe('agent-level budgets', () => {
  it('hold per call, inside the enclosing budgets too', async () => {
    const model = new ScriptedModel([toolUse('add', { a: 1, b: 2 }), json({ answer: 'never' })]);
    const { tool } = adder();
    const agent = createAgent({ name: 'one-shot', ...(await agentModel(model)), tools: [tool], budget: { modelRequests: 1 } });
    const error = await agent.prompt(ask('add')).catch((e: unknown) => e);
    expect(error).toMatchObject({ dimension: 'modelRequests', limit: 1, spent: 1 });
    expect((error as BudgetExceededError).message).toContain('agent "one-shot"');
    expect(model.requests).toHaveLength(1);
  });
});

describe('prompt-level budgets', () => {
  it('hold per call together with the agent\'s: the tighter one refuses', async () => {
    const model = new ScriptedModel([toolUse('add', { a: 1, b: 2 }), json({ answer: 'never' })]);
    const { tool } = adder();
    const agent = createAgent({ name: 'roomy', ...(await agentModel(model)), tools: [tool], budget: { modelRequests: 10 } });
    const prompt = createPrompt({ user: 'add', name: 'adding', responseFormat: Answer, budget: { modelRequests: 1 } });
    const error = await agent.prompt(prompt).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({ dimension: 'modelRequests', limit: 1, spent: 1 });
    expect((error as BudgetExceededError).message).toContain('prompt "adding"');
    expect(model.requests).toHaveLength(1);
  });

  it('survive withUser and withData', () => {
    const prompt = createPrompt({ user: 'a', responseFormat: Answer, budget: { tokens: 5 } });
    expect(prompt.withUser('b').budget).toEqual({ tokens: 5 });
    expect(prompt.withData({ x: 1 }).budget).toEqual({ tokens: 5 });
  });

  it('a bad one is a UsageError at creation', () => {
    expect(() => createPrompt({ user: 'a', responseFormat: Answer, budget: { tokens: -1 } })).toThrow(UsageError);
    expect(() => createPrompt({ user: 'a', responseFormat: Answer, budget: { tokens: -1 } })).toThrow(/config\.budget\.tokens must be an integer >= 0/);
  });
});

describe('a cache hit', () => {
  it('costs nothing: it sends no request', async () => {
    const model = new ScriptedModel([json({ answer: 'cached' })]);
    const agent = createAgent({ name: 'cached', ...(await agentModel(model)), enableCache: true });
    const workflow = createWorkflow({ name: 'w', budget: { modelRequests: 1 } }, (ctx) =>
      ctx.step('s', async () => [await agent.prompt(ask('same')), await agent.prompt(ask('same')), await agent.prompt(ask('same'))]),
    );
    await expect(workflow.run()).resolves.toEqual([{ answer: 'cached' }, { answer: 'cached' }, { answer: 'cached' }]);
    expect(model.requests).toHaveLength(1);
  });
});
