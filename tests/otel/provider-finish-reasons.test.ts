import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow, type WorkflowEvent } from 'groundswell';
import { otelObserver } from 'groundswell/otel';
import { serveChatCompletions } from 'groundswell/testing';
import { eventsOfType } from '../support/events.js';
import { Answer, MODEL, reviewer, twoTurnModel } from './scripted-run.js';
import { memoryTracing, named } from './span-helpers.js';

/** One call that asks for `add`, then answers; its spans and events. */
async function traced(agent: ReturnType<typeof reviewer>) {
  const tracing = memoryTracing();
  const events: WorkflowEvent[] = [];
  const workflow = createWorkflow({ name: 'ask' }, (ctx) =>
    ctx.step('ask', () => agent.prompt(createPrompt({ user: 'Add 2 and 3.', responseFormat: Answer }))),
  );
  workflow.addObserver({ onEvent: (event) => events.push(event) });
  workflow.addObserver(await otelObserver({ tracerProvider: tracing.provider, captureContent: true }));
  await expect(workflow.run()).resolves.toEqual({ answer: 'five' });
  const spans = tracing.spans();
  const finish = (name: string) => named(spans, name).map((span) => span.attributes['gen_ai.response.finish_reasons']);
  const outputMessage = (named(spans, 'invoke_agent reviewer')[0]?.attributes['gen_ai.output.messages'] ?? '[]') as string;
  return { events, finish, outputFinish: (JSON.parse(outputMessage) as Array<{ finish_reason: string }>)[0]?.finish_reason };
}

describe('gen_ai.response.finish_reasons speaks the provider’s words', () => {
  it('an OpenAI-compatible model: the chat spans read tool_calls then stop, the agent span stop; the loop still reads Anthropic’s words', async () => {
    const server = await serveChatCompletions(twoTurnModel());
    try {
      const model = createOpenAICompatible({ name: 'local', baseURL: server.baseURL, supportsStructuredOutputs: true }).chatModel(MODEL);
      const { events, finish, outputFinish } = await traced(reviewer(twoTurnModel(), { model }));
      // The server answers as a Chat Completions API would: finish_reason `tool_calls`, then `stop`.
      expect(finish(`chat ${MODEL}`)).toEqual([['tool_calls'], ['stop']]);
      expect(finish('invoke_agent reviewer')).toEqual([['stop']]);
      expect(outputFinish).toBe('stop');
      const requests = eventsOfType(events, 'modelRequest');
      expect(requests.map((event) => [event.stopReason, event.providerStopReason])).toEqual([
        ['tool_use', 'tool_calls'],
        ['end_turn', 'stop'],
      ]);
      expect(eventsOfType(events, 'agentPromptEnd').map((event) => event.stopReason)).toEqual(['end_turn']);
    } finally {
      await server.close();
    }
  });

  it('the Anthropic client: the spans keep tool_use and end_turn, and the events have no provider word', async () => {
    const { events, finish, outputFinish } = await traced(reviewer(twoTurnModel()));
    expect(finish(`chat ${MODEL}`)).toEqual([['tool_use'], ['end_turn']]);
    expect(finish('invoke_agent reviewer')).toEqual([['end_turn']]);
    expect(outputFinish).toBe('end_turn');
    expect(eventsOfType(events, 'modelRequest').map((event) => 'providerStopReason' in event)).toEqual([false, false]);
  });
});
