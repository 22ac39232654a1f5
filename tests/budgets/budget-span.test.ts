import { describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow } from 'groundswell';
import { otelObserver } from 'groundswell/otel';
import { json, ScriptedModel } from 'groundswell/testing';
import { Answer } from '../support/agent-helpers.js';
import { agentModel } from '../support/model-path.js';
import { memoryTracing } from '../otel/span-helpers.js';

describe('budget events in a trace', () => {
  it("are span events on the budget's node with its path, limit, spent, reserved and needed", async () => {
    const tracing = memoryTracing();
    const model = new ScriptedModel([json({ answer: 'one' })]);
    const agent = createAgent({ name: 'worker', ...(await agentModel(model)) });
    const ask = (user: string) => createPrompt({ user, responseFormat: Answer });
    const workflow = createWorkflow({ name: 'traced' }, (ctx) =>
      ctx.step('capped', async () => [await agent.prompt(ask('one')), await agent.prompt(ask('two'))], { budget: { modelRequests: 1, warnAt: 1 } }),
    );
    workflow.addObserver(await otelObserver({ tracerProvider: tracing.provider }));
    await workflow.run().catch(() => undefined);
    const events = tracing.spans().flatMap((span) => span.events.map((event) => ({ span: span.name, name: event.name, attributes: event.attributes })));
    const budget = events.filter((event) => event.name.startsWith('groundswell.budget_'));
    expect(budget.map((event) => event.name)).toEqual(['groundswell.budget_warning', 'groundswell.budget_exceeded']);
    expect(budget[1]?.attributes).toMatchObject({
      'groundswell.budget.path': 'traced / capped',
      'groundswell.budget.dimension': 'modelRequests',
      'groundswell.budget.limit': 1,
      'groundswell.budget.spent': 1,
      'groundswell.budget.reserved': 0,
      'groundswell.budget.needed': 1,
    });
    expect(budget[0]?.attributes).toMatchObject({ 'groundswell.budget.warn_at': 1, 'groundswell.budget.reserved': 1 });
  });

  it("carry each budget's limit, spent and reserved as attributes of its node's span when it ends", async () => {
    const tracing = memoryTracing();
    const model = new ScriptedModel(() => json({ answer: 'one' }, { usage: { input_tokens: 5, output_tokens: 7 } }));
    const agent = createAgent({ name: 'worker', ...(await agentModel(model)) });
    const workflow = createWorkflow({ name: 'traced', budget: { tokens: 1_000_000, wallMs: 60_000 } }, (ctx) =>
      ctx.step('capped', async () => agent.prompt(createPrompt({ user: 'one', responseFormat: Answer })), { budget: { modelRequests: 3 } }),
    );
    workflow.addObserver(await otelObserver({ tracerProvider: tracing.provider }));
    await workflow.run();
    const spans = tracing.spans();
    const step = spans.find((span) => span.attributes['groundswell.budget.step.modelRequests.limit'] !== undefined);
    expect(step?.attributes).toMatchObject({
      'groundswell.budget.step.modelRequests.limit': 3,
      'groundswell.budget.step.modelRequests.spent': 1,
      'groundswell.budget.step.modelRequests.reserved': 0,
    });
    const root = spans.find((span) => span.attributes['groundswell.budget.workflow.tokens.limit'] !== undefined);
    expect(root?.attributes).toMatchObject({
      'groundswell.budget.workflow.tokens.limit': 1_000_000,
      'groundswell.budget.workflow.tokens.spent': 12,
      'groundswell.budget.workflow.tokens.reserved': 0,
      'groundswell.budget.workflow.wallMs.limit': 60_000,
    });
    // Nodes without a budget carry none.
    expect(spans.filter((span) => Object.keys(span.attributes).some((key) => key.startsWith('groundswell.budget.')))).toHaveLength(2);
  });
});
