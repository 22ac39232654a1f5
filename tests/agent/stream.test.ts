import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AgentStream,
  createAgent,
  createPrompt,
  StructuredOutputError,
  type AgentStreamEvent,
} from 'groundswell';
import { json, ScriptedModel, stream, toolUse } from 'groundswell/testing';
import { adder, Answer, onlyChild, runInStep } from '../support/agent-helpers.js';
import { eventsOfType } from '../support/events.js';
import { agentModel, pathUsage } from '../support/model-path.js';

/** Every event of a stream, and the error that ended it (if any). */
async function drain<T>(events: AsyncIterable<AgentStreamEvent<T>>): Promise<{ events: AgentStreamEvent<T>[]; error: unknown }> {
  const seen: AgentStreamEvent<T>[] = [];
  try {
    for await (const event of events) seen.push(event);
  } catch (error) {
    return { events: seen, error };
  }
  return { events: seen, error: undefined };
}

/** Event types in order, with runs of text events collapsed into one `text`. */
function outline<T>(events: readonly AgentStreamEvent<T>[]): string[] {
  const out: string[] = [];
  for (const event of events) {
    const label = event.type === 'usage' ? `usage:${event.turn}` : event.type;
    if (label === 'text' && out.at(-1) === 'text') continue;
    out.push(label);
  }
  return out;
}

function textOf<T>(events: readonly AgentStreamEvent<T>[]): string {
  return events.map((event) => (event.type === 'text' ? event.text : '')).join('');
}

describe('agent.stream(prompt)', () => {
  it('yields the answer text as it arrives, then usage, then a validated result; finalValue() is the same value', async () => {
    const model = new ScriptedModel([stream(json({ answer: 'streamed answer' }), { chunkSize: 4 })]);
    const agent = createAgent({ name: 'streamer', ...(await agentModel(model)) });
    const answer = agent.stream(createPrompt({ user: 'go', responseFormat: Answer }));
    expect(answer).toBeInstanceOf(AgentStream);

    const { events, error } = await drain(answer);
    expect(error).toBeUndefined();
    expect(outline(events)).toEqual(['text', 'usage:1', 'result']);
    expect(streamEventsOf(events, 'text').length).toBeGreaterThan(1);
    expect(textOf(events)).toBe(JSON.stringify({ answer: 'streamed answer' }));
    const result = events.at(-1);
    expect(result).toEqual({ type: 'result', value: { answer: 'streamed answer' } });
    const final = await answer.finalValue();
    expect(final).toEqual({ answer: 'streamed answer' });
    expect(result?.type === 'result' ? result.value : undefined).toBe(final);
    expect(model.requests[0]?.stream).toBe(true);
    model.assertComplete();
  });

  it('reports each turn’s usage, cache tokens included', async () => {
    const model = new ScriptedModel([
      stream(toolUse('add', { a: 1, b: 2 }), { usage: { cache_creation_input_tokens: 4, cache_read_input_tokens: 2 } }),
      stream(json({ answer: '3' }), { usage: { input_tokens: 300, output_tokens: 30, cache_creation_input_tokens: 0, cache_read_input_tokens: 250 } }),
    ]);
    const agent = createAgent({ name: 'streamer', ...(await agentModel(model)), tools: [adder().tool] });
    const { events } = await drain(agent.stream(createPrompt({ user: 'go', responseFormat: Answer })));
    expect(streamEventsOf(events, 'usage')).toEqual([
      { type: 'usage', turn: 1, usage: pathUsage({ inputTokens: 20, outputTokens: 10, cacheCreationInputTokens: 4, cacheReadInputTokens: 2 }) },
      { type: 'usage', turn: 2, usage: pathUsage({ inputTokens: 300, outputTokens: 30, cacheCreationInputTokens: 0, cacheReadInputTokens: 250 }) },
    ]);
    model.assertComplete();
  });

  it('in a tool loop yields toolUse and toolResult events, streams every turn, and runs the tools', async () => {
    const { tool, calls } = adder();
    const model = new ScriptedModel([
      stream(toolUse('add', { a: 1, b: 2 }, { id: 'toolu_s1', text: 'Adding first.' })),
      stream(toolUse('add', { a: 3, b: 3 }, { id: 'toolu_s2' })),
      stream(json({ answer: '9' })),
    ]);
    const agent = createAgent({ name: 'streamer', ...(await agentModel(model)), tools: [tool] });
    const answer = agent.stream(createPrompt({ user: 'add things', responseFormat: Answer }));
    const { events, error } = await drain(answer);
    expect(error).toBeUndefined();
    expect(outline(events)).toEqual([
      'text',
      'usage:1',
      'toolUse',
      'toolResult',
      'usage:2',
      'toolUse',
      'toolResult',
      'text',
      'usage:3',
      'result',
    ]);
    expect(streamEventsOf(events, 'toolUse')).toEqual([
      { type: 'toolUse', toolUseId: 'toolu_s1', name: 'add', input: { a: 1, b: 2 } },
      { type: 'toolUse', toolUseId: 'toolu_s2', name: 'add', input: { a: 3, b: 3 } },
    ]);
    expect(streamEventsOf(events, 'toolResult')).toEqual([
      { type: 'toolResult', toolUseId: 'toolu_s1', name: 'add', output: '3', isError: false },
      { type: 'toolResult', toolUseId: 'toolu_s2', name: 'add', output: '6', isError: false },
    ]);
    expect(textOf(events)).toBe(`Adding first.${JSON.stringify({ answer: '9' })}`);
    expect(calls).toEqual([
      { a: 1, b: 2 },
      { a: 3, b: 3 },
    ]);
    await expect(answer.finalValue()).resolves.toEqual({ answer: '9' });
    expect(model.requests.map((r) => r.stream)).toEqual([true, true, true]);
    model.assertComplete();
  });

  it('a tool error shows as a toolResult with isError', async () => {
    const model = new ScriptedModel([stream(toolUse('missing_tool', {})), stream(json({ answer: 'ok' }))]);
    const agent = createAgent({ name: 'streamer', ...(await agentModel(model)), tools: [adder().tool] });
    const { events } = await drain(agent.stream(createPrompt({ user: 'go', responseFormat: Answer })));
    const [result] = streamEventsOf(events, 'toolResult');
    expect(result).toMatchObject({ name: 'missing_tool', isError: true });
    expect(result?.output).toContain('add');
    model.assertComplete();
  });

  it('a schema mismatch rejects the iteration (after the text it streamed) and finalValue()', async () => {
    const model = new ScriptedModel([stream(json({ answer: 42 }))]);
    const agent = createAgent({ name: 'streamer', ...(await agentModel(model)) });
    const answer = agent.stream(createPrompt({ user: 'go', responseFormat: Answer }));
    const { events, error } = await drain(answer);
    expect(error).toBeInstanceOf(StructuredOutputError);
    expect((error as StructuredOutputError).reason).toBe('schema_mismatch');
    expect(events.some((e) => e.type === 'result')).toBe(false);
    expect(textOf(events)).toBe('{"answer":42}');
    await expect(answer.finalValue()).rejects.toBe(error);
    model.assertComplete();
  });

  it('a stream cut off by an API error rejects with the SDK error', async () => {
    const model = new ScriptedModel([stream(json({ answer: 'never finished' }), { interruptWith: { type: 'overloaded_error' } })]);
    const agent = createAgent({ name: 'streamer', client: model.client({ maxRetries: 0 }) });
    const answer = agent.stream(createPrompt({ user: 'go', responseFormat: Answer }));
    const { error } = await drain(answer);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as Error).message).toContain('overloaded_error');
    await expect(answer.finalValue()).rejects.toBe(error);
    model.assertComplete();
  });

  it('buffers events: reading after the call finished still yields all of them, to every reader', async () => {
    const model = new ScriptedModel([stream(json({ answer: 'late reader' }), { chunkSize: 3 })]);
    const agent = createAgent({ name: 'streamer', ...(await agentModel(model)) });
    const answer = agent.stream(createPrompt({ user: 'go', responseFormat: Answer }));
    await answer.finalValue();
    const first = await drain(answer);
    const second = await drain(answer);
    expect(outline(first.events)).toEqual(['text', 'usage:1', 'result']);
    expect(second.events).toEqual(first.events);
    expect(textOf(first.events)).toBe('{"answer":"late reader"}');
    model.assertComplete();
  });

  it('reading only finalValue() of a failing stream rejects cleanly (no unhandled rejection)', async () => {
    const model = new ScriptedModel([stream(json({}))]);
    const agent = createAgent({ name: 'streamer', ...(await agentModel(model)) });
    await expect(agent.stream(createPrompt({ user: 'go', responseFormat: Answer })).finalValue()).rejects.toBeInstanceOf(StructuredOutputError);
    model.assertComplete();
  });

  it('inside a step, a streamed call is an agentPrompt node with the usual events', async () => {
    const model = new ScriptedModel([stream(toolUse('add', { a: 1, b: 1 })), stream(json({ answer: '2' }))]);
    const agent = createAgent({ name: 'streamer', ...(await agentModel(model)), tools: [adder().tool] });
    const run = await runInStep(() => agent.stream(createPrompt({ user: 'go', responseFormat: Answer })).finalValue());
    expect(run.outcome).toEqual({ ok: true, value: { answer: '2' } });
    const promptNode = onlyChild(run.step, 'agentPrompt');
    expect(onlyChild(promptNode, 'toolCall').name).toBe('add');
    const [end] = eventsOfType(run.recording.events, 'agentPromptEnd');
    expect(end).toMatchObject({
      nodeId: promptNode.id,
      status: 'completed',
      turns: 2,
      usage: { inputTokens: 40, outputTokens: 20, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
    });
    model.assertComplete();
  });

  it('validates with the prompt schema, defaults included', async () => {
    const model = new ScriptedModel([stream(json({ title: 't' }))]);
    const agent = createAgent({ name: 'streamer', ...(await agentModel(model)) });
    const answer = agent.stream(createPrompt({ user: 'go', responseFormat: z.object({ title: z.string(), done: z.boolean().default(false) }) }));
    await expect(answer.finalValue()).resolves.toEqual({ title: 't', done: false });
    model.assertComplete();
  });
});

/** Stream events of one type, narrowed. */
function streamEventsOf<T, K extends AgentStreamEvent<T>['type']>(
  events: readonly AgentStreamEvent<T>[],
  type: K,
): Extract<AgentStreamEvent<T>, { type: K }>[] {
  return events.filter((event): event is Extract<AgentStreamEvent<T>, { type: K }> => event.type === type);
}
