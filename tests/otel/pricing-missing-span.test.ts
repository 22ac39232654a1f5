import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createPrompt, createWorkflow } from 'groundswell';
import { otelObserver } from 'groundswell/otel';
import { MODEL, reviewer, twoTurnModel } from './scripted-run.js';
import { memoryTracing, named } from './span-helpers.js';

describe('a missing price in a trace', () => {
  it('is a span event on the agent call that found its model unpriced, naming the agent and model', async () => {
    const tracing = memoryTracing();
    const agent = reviewer(twoTurnModel(), { pricing: { 'some-other-model': { inputPerMTok: 3, outputPerMTok: 15 } } });
    const workflow = createWorkflow({ name: 'unpriced' }, async (ctx) => {
      await ctx.step('ask', () => agent.prompt(createPrompt({ name: 'add', user: 'Add 2 and 3.', responseFormat: z.object({ answer: z.string() }) })));
    });
    workflow.addObserver(await otelObserver({ tracerProvider: tracing.provider }));
    await workflow.run();
    const [call] = named(tracing.spans(), 'invoke_agent reviewer');
    expect(call?.events.filter((event) => event.name === 'groundswell.pricing_missing').map((event) => event.attributes)).toEqual([
      { 'gen_ai.agent.name': 'reviewer', 'gen_ai.request.model': MODEL },
    ]);
  });
});
