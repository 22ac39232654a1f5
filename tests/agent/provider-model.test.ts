import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  defineTool,
  MalformedResponseError,
  ProviderApiError,
  UsageError,
  WorkflowTreeDebugger,
  type WorkflowEvent,
} from 'groundswell';
import { LruCacheStore } from 'groundswell/cache';
import type { LanguageModelLike } from 'groundswell';
import type { ProviderCallOptions, ProviderGenerateResult, ProviderStreamPart } from '../../src/agent/model/language-model.js';
import { registerTurnFeature } from '../../src/agent/turn-features.js';

const Sum = z.object({ sum: z.number() });

type Answer = ProviderGenerateResult | Error;

/** A language model of the v3 spec answering from a list, recording each call's options. */
function fakeModel(answers: Answer[], extra: Record<string, unknown> = {}): LanguageModelLike & { calls: ProviderCallOptions[] } {
  const calls: ProviderCallOptions[] = [];
  const next = (options: ProviderCallOptions): ProviderGenerateResult => {
    calls.push(structuredClone({ ...options, abortSignal: undefined }));
    const answer = answers.shift();
    if (answer === undefined) throw new Error('no answer left');
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return {
    specificationVersion: 'v3',
    provider: 'local.chat',
    modelId: 'llama-test',
    calls,
    ...extra,
    doGenerate: async (options) => next(options),
    doStream: async (options) => {
      const answer = next(options);
      const parts: ProviderStreamPart[] = [{ type: 'stream-start', warnings: [] }];
      for (const part of answer.content) {
        if (part.type === 'text') for (const delta of (part.text ?? '').match(/.{1,4}/g) ?? []) parts.push({ type: 'text-delta', id: 't', delta });
        else parts.push(part);
      }
      parts.push({ type: 'finish', finishReason: answer.finishReason, usage: answer.usage });
      return { stream: new ReadableStream({ start: (c) => { for (const p of parts) c.enqueue(p); c.close(); } }) };
    },
  };
}

const usage = (input: number, output: number, cacheRead = 0) => ({
  inputTokens: { total: input, noCache: input - cacheRead, cacheRead, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});
const answerTool = (input: unknown): ProviderGenerateResult => ({
  content: [{ type: 'tool-call', toolCallId: 'a1', toolName: 'final_answer', input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage: usage(100, 10),
  warnings: [],
});
const toolCall = (id: string, name: string, input: unknown): ProviderGenerateResult => ({
  content: [{ type: 'tool-call', toolCallId: id, toolName: name, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage: usage(50, 5),
  warnings: [],
});
const text = (value: string): ProviderGenerateResult => ({ content: [{ type: 'text', text: value }], finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(80, 8, 30), warnings: [] });
const httpError = (status: number): Error => Object.assign(new Error(`HTTP ${status}`), { statusCode: status, isRetryable: status === 429 || status >= 500 });

describe('agents on an AI SDK provider model', () => {
  it('runs the tool loop (a failing tool goes back as an error) and answers through a forced answer tool', async () => {
    const add = defineTool({
      name: 'add',
      description: 'Adds.',
      input: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => {
        if (a < 0) throw new Error('negative');
        return a + b;
      },
    });
    const model = fakeModel([toolCall('c1', 'add', { a: -1, b: 1 }), toolCall('c2', 'add', { a: 2, b: 3 }), answerTool({ sum: 5 })]);
    const agent = createAgent({ name: 'adder', model, tools: [add], system: 'You add.' });
    const result = await agent.execute(createPrompt({ user: '2+3?', responseFormat: Sum }));

    expect(result.value).toEqual({ sum: 5 });
    expect(result.model).toBe('llama-test');
    expect(result.toolCalls.map((call) => [call.name, call.isError])).toEqual([['add', true], ['add', false]]);
    const [first, second, third] = model.calls;
    expect(first?.prompt[0]).toEqual({ role: 'system', content: 'You add.' });
    expect(first?.tools?.map((tool) => tool.name)).toEqual(['add', 'final_answer']);
    expect(first?.toolChoice).toEqual({ type: 'required' });
    expect(first?.responseFormat).toBeUndefined();
    expect(second?.prompt.at(-1)).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'add', output: { type: 'error-text', value: expect.stringContaining('negative') } }],
    });
    expect(third?.prompt.at(-1)).toMatchObject({ role: 'tool', content: [{ toolCallId: 'c2', output: { type: 'text', value: '5' } }] });
    expect(result.usage).toMatchObject({ inputTokens: 200, outputTokens: 20 });
    expect(result.turns).toBe(3);
  });

  it('sends the JSON schema as the response format where the model supports structured outputs', async () => {
    const model = fakeModel([text('{"sum":4}')], { supportsStructuredOutputs: true });
    const value = await createAgent({ name: 'json', model }).prompt(createPrompt({ user: '2+2?', responseFormat: Sum }));
    expect(value).toEqual({ sum: 4 });
    expect(model.calls[0]?.responseFormat).toMatchObject({ type: 'json', schema: { type: 'object', properties: { sum: { type: 'number' } } } });
    expect(model.calls[0]?.tools).toBeUndefined();
  });

  it('streams text as it arrives, with usage priced by provider and model', async () => {
    const model = fakeModel([text('{"sum":7}')], { supportsStructuredOutputs: true });
    const agent = createAgent({ name: 'streamer', model, pricing: { 'local/llama-test': { inputPerMTok: 1, outputPerMTok: 2 } } });
    const texts: string[] = [];
    const stream = agent.stream(createPrompt({ user: '3+4?', responseFormat: Sum }));
    for await (const event of stream) if (event.type === 'text') texts.push(event.text);
    expect(texts.join('')).toBe('{"sum":7}');
    expect(texts.length).toBeGreaterThan(1);
    expect(await stream.finalValue()).toEqual({ sum: 7 });
    const result = await createAgent({ name: 'priced', model: fakeModel([text('{"sum":7}')], { supportsStructuredOutputs: true }), pricing: { 'local/llama-test': { inputPerMTok: 1, outputPerMTok: 2 } } }).execute(
      createPrompt({ user: '3+4?', responseFormat: Sum }),
    );
    // 50 uncached input tokens at $1/M, 30 cache reads at a tenth of that, 8 output at $2/M.
    expect(result.usage.costUsd).toBeCloseTo(50 / 1e6 + 3 / 1e6 + 16 / 1e6, 12);
  });

  it('keys the prompt cache by provider and model: the same model id on another provider misses', async () => {
    const cache = new LruCacheStore();
    const local = fakeModel([text('{"sum":1}')], { supportsStructuredOutputs: true });
    const other = fakeModel([text('{"sum":2}')], { supportsStructuredOutputs: true, provider: 'other.chat' });
    const prompt = createPrompt({ user: '1?', responseFormat: Sum });
    const events: WorkflowEvent[] = [];
    const wf = createWorkflow({ name: 'keys' }, (ctx) =>
      ctx.step('ask', async () => [
        await createAgent({ name: 'same', model: local, cache, enableCache: true }).prompt(prompt),
        await createAgent({ name: 'same', model: local, cache, enableCache: true }).prompt(prompt),
        await createAgent({ name: 'same', model: other, cache, enableCache: true }).prompt(prompt),
      ]),
    );
    wf.addObserver({ onEvent: (event) => events.push(event) });
    expect(await wf.run()).toEqual([{ sum: 1 }, { sum: 1 }, { sum: 2 }]);
    const misses = events.flatMap((event) => (event.type === 'cacheMiss' ? [event] : []));
    expect(misses).toHaveLength(2);
    expect(JSON.stringify(misses[1])).toContain('model');
    const starts = events.flatMap((event) => (event.type === 'agentPromptStart' ? [event.provider] : []));
    expect(starts).toEqual(['local', 'local', 'other']);
    // The tree names the provider with the model.
    const tree = new WorkflowTreeDebugger(wf).toTreeString();
    expect(tree).toContain('(local/llama-test)');
    expect(tree).toContain('(other/llama-test)');
  });

  it('retries a 429 with an apiError event per failed attempt, then answers', async () => {
    const model = fakeModel([httpError(429), text('{"sum":3}')], { supportsStructuredOutputs: true });
    const events: WorkflowEvent[] = [];
    const wf = createWorkflow({ name: 'retry' }, (ctx) => ctx.step('ask', () => createAgent({ name: 'r', model }).prompt(createPrompt({ user: '1+2?', responseFormat: Sum }))));
    wf.addObserver({ onEvent: (event) => events.push(event) });
    expect(await wf.run()).toEqual({ sum: 3 });
    expect(events.filter((event) => event.type === 'apiError')).toEqual([expect.objectContaining({ agentName: 'r', attempt: 1, status: 429 })]);
  });

  it('a 400 is a ProviderApiError naming provider, model and status, not retried', async () => {
    const model = fakeModel([httpError(400)], { supportsStructuredOutputs: true });
    const error: unknown = await createAgent({ name: 'bad', model }).prompt(createPrompt({ user: 'x', responseFormat: Sum })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderApiError);
    expect(error).toMatchObject({ provider: 'local', model: 'llama-test', status: 400 });
    expect((error as Error).message).toMatch(/local model "llama-test" failed with status 400/);
    expect(model.calls).toHaveLength(1);
  });

  it('tool call arguments that are not JSON are a MalformedResponseError', async () => {
    const model = fakeModel([{ content: [{ type: 'tool-call', toolCallId: 'x', toolName: 'final_answer', input: '{"sum":' }], finishReason: 'tool-calls', usage: { inputTokens: 1, outputTokens: 1 } }]);
    await expect(createAgent({ name: 'garbled', model }).prompt(createPrompt({ user: 'x', responseFormat: Sum }))).rejects.toBeInstanceOf(MalformedResponseError);
  });

  it('a model that says it supports no tools is a UsageError naming the model and the feature', async () => {
    const model = fakeModel([{ ...answerTool({ sum: 1 }), warnings: [{ type: 'unsupported', feature: 'tools' }] }]);
    await expect(createAgent({ name: 'toolless', model }).prompt(createPrompt({ user: 'x', responseFormat: Sum }))).rejects.toThrow(UsageError);
    await expect(createAgent({ name: 'toolless', model: fakeModel([{ ...answerTool({ sum: 1 }), warnings: [{ type: 'unsupported', feature: 'tools' }] }]) }).prompt(createPrompt({ user: 'x', responseFormat: Sum }))).rejects.toThrow(
      /local\.chat model "llama-test" does not support tools/,
    );
  });

  it('reads the v2 usage and finish reason too', async () => {
    const model = fakeModel([{ content: [{ type: 'text', text: '{"sum":9}' }], finishReason: 'stop', usage: { inputTokens: 40, outputTokens: 4, cachedInputTokens: 10 } }], {
      specificationVersion: 'v2',
      supportsStructuredOutputs: true,
    });
    const result = await createAgent({ name: 'v2', model }).execute(createPrompt({ user: 'x', responseFormat: Sum }));
    expect(result.value).toEqual({ sum: 9 });
    expect(result.usage).toMatchObject({ inputTokens: 30, cacheReadInputTokens: 10, outputTokens: 4 });
    expect(result.stopReason).toBe('end_turn');
  });

  it('refuses a model value that is neither a model id nor a language model', () => {
    expect(() => createAgent({ name: 'x', model: { modelId: 'half' } as never })).toThrow(/a non-empty string \(an Anthropic model id\) or an AI SDK language model/);
  });

  it('a turn feature may send one request to another provider model; by id it is a UsageError on a provider model', async () => {
    const main = fakeModel([toolCall('c1', 'add', { a: 1, b: 2 }), text('{"sum":3}')], { supportsStructuredOutputs: true });
    const other = fakeModel([toolCall('c2', 'add', { a: 1, b: 2 })], { provider: 'other.chat', modelId: 'big' });
    const add = defineTool({ name: 'add', description: 'Adds.', input: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b });
    const unregister = registerTurnFeature((context) =>
      context.agentName === 'switching'
        ? { name: 'escalate', beforeRequest: (request) => (request.turn === 2 ? request.override({ model: other }) : undefined) }
        : context.agentName === 'by-id'
          ? { name: 'by-id', beforeRequest: (request) => request.override({ model: 'claude-haiku-4-5' }) }
          : undefined,
    );
    try {
      const events: WorkflowEvent[] = [];
      const wf = createWorkflow({ name: 'switch' }, (ctx) =>
        ctx.step('ask', () => createAgent({ name: 'switching', model: main, tools: [add] }).prompt(createPrompt({ user: '1+2?', responseFormat: Sum }))),
      );
      wf.addObserver({ onEvent: (event) => events.push(event) });
      expect(await wf.run()).toEqual({ sum: 3 });
      expect([main.calls.length, other.calls.length]).toEqual([2, 1]);
      expect(events.flatMap((e) => (e.type === 'modelRequest' ? [`${e.provider}/${e.requestModel}`] : []))).toEqual(['local/llama-test', 'other/big', 'local/llama-test']);
      await expect(createAgent({ name: 'by-id', model: fakeModel([]) }).prompt(createPrompt({ user: 'x', responseFormat: Sum }))).rejects.toThrow(
        /Turn feature "by-id" asked for model "claude-haiku-4-5" by id, but this call runs on a local model/,
      );
    } finally {
      unregister();
    }
  });
});
