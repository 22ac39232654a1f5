import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3FunctionTool,
  type LanguageModelV3Prompt,
  type LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import {
  httpError,
  json,
  networkError,
  rawResponse,
  requestData,
  route,
  ScriptedModel,
  ScriptError,
  serveChatCompletions,
  stream,
  text,
  toolResults,
  toolUse,
  type ChatCompletionsServer,
  type Responder,
  type ScriptStep,
} from 'groundswell/testing';

// Every test drives the real OpenAI-compatible provider package over real loopback HTTP; only
// the server's answers are scripted.
const MODEL_ID = 'llama3.2';

let servers: ChatCompletionsServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

interface Harness {
  readonly model: ScriptedModel;
  readonly server: ChatCompletionsServer;
  /** With structured outputs and streamed usage on, as a test of a capable local server wants. */
  readonly chat: LanguageModelV3;
}

async function serve(script: readonly ScriptStep[] | Responder): Promise<Harness> {
  const model = new ScriptedModel(script);
  const server = await serveChatCompletions(model);
  servers.push(server);
  const provider = createOpenAICompatible({
    name: 'local',
    baseURL: server.baseURL,
    includeUsage: true,
    supportsStructuredOutputs: true,
  });
  return { model, server, chat: provider.chatModel(MODEL_ID) };
}

function ask(user: string, extra: Partial<LanguageModelV3CallOptions> = {}): LanguageModelV3CallOptions {
  return {
    prompt: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: [{ type: 'text', text: user }] },
    ],
    ...extra,
  };
}

const weatherTool: LanguageModelV3FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

// Read with a reader: the provider types its stream as the DOM ReadableStream, not async-iterable.
async function partsOf(
  stream: ReadableStream<LanguageModelV3StreamPart>,
  onPart: (part: LanguageModelV3StreamPart) => void = () => undefined,
): Promise<LanguageModelV3StreamPart[]> {
  const parts: LanguageModelV3StreamPart[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    parts.push(next.value);
    onPart(next.value);
  }
  return parts;
}

async function rejectionOf(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

async function apiCallErrorOf(promise: PromiseLike<unknown>): Promise<APICallError> {
  const error = await rejectionOf(promise);
  if (!APICallError.isInstance(error)) throw new Error(`expected an APICallError, got ${String(error)}`);
  return error;
}

describe('serveChatCompletions: the same scripts through an OpenAI-compatible provider', () => {
  it('answers a text step as a chat.completion and records the request in the Messages shape', async () => {
    const { model, chat } = await serve([text('Hello there.')]);
    const result = await chat.doGenerate(
      ask('Say hello', { maxOutputTokens: 64, temperature: 0.2, stopSequences: ['END'] }),
    );

    expect(result.content).toEqual([{ type: 'text', text: 'Hello there.' }]);
    expect(result.finishReason).toEqual({ unified: 'stop', raw: 'stop' });
    expect(result.response).toMatchObject({ id: 'msg_scripted_0001', modelId: MODEL_ID });

    const [request] = model.requests;
    expect(request).toMatchObject({
      index: 0,
      method: 'POST',
      path: '/v1/chat/completions',
      model: MODEL_ID,
      stream: false,
      firstUserText: 'Say hello',
    });
    expect(request?.body).toEqual({
      model: MODEL_ID,
      max_tokens: 64,
      system: [{ type: 'text', text: 'You are terse.' }],
      messages: [{ role: 'user', content: 'Say hello' }],
      temperature: 0.2,
      stop_sequences: ['END'],
    });
    // The body as the client sent it stays on the record.
    expect(request?.chatCompletions).toMatchObject({
      model: MODEL_ID,
      max_tokens: 64,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Say hello' },
      ],
    });
    expect(JSON.parse(request?.rawBody ?? '')).toEqual(request?.chatCompletions);
    model.assertComplete();
  });

  it('reports scripted usage, cache reads included in the prompt tokens', async () => {
    const usage = { input_tokens: 100, output_tokens: 7, cache_read_input_tokens: 900, cache_creation_input_tokens: 50 };
    const { chat } = await serve([text('cached', { usage })]);
    const result = await chat.doGenerate(ask('Again'));

    expect(result.usage.inputTokens).toEqual({ total: 1050, noCache: 150, cacheRead: 900, cacheWrite: undefined });
    expect(result.usage.outputTokens).toMatchObject({ total: 7 });
    expect(result.usage.raw).toEqual({
      prompt_tokens: 1050,
      completion_tokens: 7,
      total_tokens: 1057,
      prompt_tokens_details: { cached_tokens: 900 },
    });
  });

  it('runs a tool call and its result round; the second request carries the tool_result', async () => {
    // A responder reading the tool results, exactly as on the Anthropic path.
    const { model, chat } = await serve((request) => {
      const [result] = toolResults(request);
      return result === undefined ? toolUse('get_weather', { city: 'Paris' }) : text(`It is ${result.content}.`);
    });

    const first = await chat.doGenerate(
      ask('Weather in Paris?', { tools: [weatherTool], toolChoice: { type: 'tool', toolName: 'get_weather' } }),
    );
    expect(first.finishReason.unified).toBe('tool-calls');
    const [call] = first.content;
    if (call?.type !== 'tool-call') throw new Error('expected a tool call');
    expect(call).toMatchObject({ toolCallId: 'toolu_scripted_0001_1', toolName: 'get_weather' });
    expect(JSON.parse(call.input)).toEqual({ city: 'Paris' });
    expect(model.requests[0]?.body).toMatchObject({
      tools: [
        {
          name: 'get_weather',
          description: 'Current weather for a city',
          input_schema: weatherTool.inputSchema,
        },
      ],
      tool_choice: { type: 'tool', name: 'get_weather' },
    });

    const prompt: LanguageModelV3Prompt = [
      ...ask('Weather in Paris?').prompt,
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: call.input }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            output: { type: 'text', value: '18°C' },
          },
        ],
      },
    ];
    const second = await chat.doGenerate({ prompt, tools: [weatherTool] });
    expect(second.content).toEqual([{ type: 'text', text: 'It is 18°C.' }]);

    const sent = model.requests[1];
    expect(sent?.body.messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_scripted_0001_1', name: 'get_weather', input: { city: 'Paris' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_scripted_0001_1', content: '18°C' }] },
    ]);
    expect(sent === undefined ? [] : toolResults(sent)).toEqual([
      { toolUseId: 'toolu_scripted_0001_1', content: '18°C', isError: false },
    ]);
    model.assertComplete();
  });

  it('maps every tool choice and a serial-tools request', async () => {
    const { model, chat } = await serve(() => text('ok'));
    for (const toolChoice of [{ type: 'auto' }, { type: 'none' }, { type: 'required' }] as const) {
      await chat.doGenerate(ask('Pick', { tools: [weatherTool], toolChoice }));
    }
    await chat.doGenerate(
      ask('Pick', { tools: [weatherTool], providerOptions: { local: { parallel_tool_calls: false } } }),
    );
    expect(model.requests.map((request) => request.body.tool_choice)).toEqual([
      { type: 'auto' },
      { type: 'none' },
      { type: 'any' },
      { type: 'auto', disable_parallel_tool_use: true },
    ]);
  });

  it('answers a json() step; the response format is recorded as output_config', async () => {
    const schema = {
      type: 'object',
      properties: { answer: { type: 'number' } },
      required: ['answer'],
      additionalProperties: false,
    };
    const { model, chat } = await serve([json({ answer: 4 })]);
    const result = await chat.doGenerate(ask('2+2?', { responseFormat: { type: 'json', schema } }));

    const [part] = result.content;
    expect(part?.type === 'text' ? JSON.parse(part.text) : undefined).toEqual({ answer: 4 });
    expect(model.requests[0]?.body.output_config).toEqual({ format: { type: 'json_schema', schema } });
    expect(model.requests[0]?.chatCompletions?.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { schema },
    });
  });

  it('records a schema-less JSON request (json_object) as a schema admitting any object', async () => {
    const model = new ScriptedModel([json({ ok: true })]);
    const server = await serveChatCompletions(model);
    servers.push(server);
    // Without structured outputs the provider sends json_object and keeps the schema to itself.
    const chat = createOpenAICompatible({ name: 'plain', baseURL: server.baseURL }).chatModel(MODEL_ID);
    await chat.doGenerate(ask('JSON please', { responseFormat: { type: 'json' } }));
    expect(model.requests[0]?.body.output_config).toEqual({ format: { type: 'json_schema', schema: { type: 'object' } } });
  });

  it('streams text as content deltas, then the finish reason and usage', async () => {
    const { model, chat } = await serve([stream(text('Streaming works, one piece at a time.'), { chunkSize: 5 })]);
    const { stream: parts } = await chat.doStream(ask('Stream it'));
    const received = await partsOf(parts);

    const deltas = received.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.every((delta) => Array.from(delta).length <= 5)).toBe(true);
    expect(deltas.join('')).toBe('Streaming works, one piece at a time.');
    const finish = received.find((part) => part.type === 'finish');
    expect(finish).toMatchObject({
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: 20 }, outputTokens: { total: 10 } },
    });
    expect(received.filter((part) => part.type === 'error')).toEqual([]);
    expect(model.requests[0]?.stream).toBe(true);
    expect(model.requests[0]?.chatCompletions?.stream_options).toEqual({ include_usage: true });
    model.assertComplete();
  });

  it('streams a tool call as tool_call deltas the provider reassembles', async () => {
    const { chat } = await serve([
      stream(toolUse('get_weather', { city: 'Rio de Janeiro' }, { text: 'Checking.' }), { chunkSize: 4 }),
    ]);
    const { stream: parts } = await chat.doStream(ask('Weather in Rio?', { tools: [weatherTool] }));
    const received = await partsOf(parts);

    const argumentDeltas = received.filter((part) => part.type === 'tool-input-delta');
    expect(argumentDeltas.length).toBeGreaterThan(1);
    const call = received.find((part) => part.type === 'tool-call');
    expect(call).toMatchObject({ toolCallId: 'toolu_scripted_0001_2', toolName: 'get_weather' });
    expect(call?.type === 'tool-call' ? JSON.parse(call.input) : undefined).toEqual({ city: 'Rio de Janeiro' });
    expect(received.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : [])).join('')).toBe('Checking.');
    expect(received.find((part) => part.type === 'finish')).toMatchObject({ finishReason: { unified: 'tool-calls' } });
  });

  it('ends a stream with an error chunk when the step is interrupted', async () => {
    const { chat } = await serve([stream(text('Half an answer'), { interruptWith: { message: 'Overloaded now' } })]);
    const { stream: parts } = await chat.doStream(ask('Stream it'));
    const received = await partsOf(parts);

    expect(received.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : [])).join('')).toBe('Half an answer');
    expect(received.find((part) => part.type === 'error')).toMatchObject({
      error: { message: 'Overloaded now', type: 'overloaded_error' },
    });
    expect(received.find((part) => part.type === 'finish')).toMatchObject({ finishReason: { unified: 'error' } });
  });

  it('drops the connection mid-stream after cutAfterEvents chunks', async () => {
    const { chat } = await serve([stream(text('abcdefghij'), { chunkSize: 2, cutAfterEvents: 3 })]);
    const { stream: parts } = await chat.doStream(ask('Stream it'));
    const deltas: string[] = [];
    const error = await rejectionOf(
      partsOf(parts, (part) => {
        if (part.type === 'text-delta') deltas.push(part.delta);
      }),
    );
    // The role chunk and two content chunks arrived; then the body failed as undici reports a cut.
    expect(deltas).toEqual(['ab', 'cd']);
    expect(APICallError.isInstance(error) && error.cause).toMatchObject({ name: 'TypeError', message: 'terminated' });
  });

  it('turns a 429 and a 500 into the same statuses with OpenAI-style bodies (APICallError)', async () => {
    const { model, chat } = await serve([httpError(429, { message: 'Slow down' }), httpError(500)]);

    const limited = await apiCallErrorOf(chat.doGenerate(ask('One')));
    expect(limited.statusCode).toBe(429);
    expect(limited.isRetryable).toBe(true);
    expect(limited.message).toBe('Slow down');
    expect(limited.responseHeaders).toMatchObject({ 'retry-after-ms': '1' });
    expect(JSON.parse(limited.responseBody ?? '')).toEqual({
      error: { message: 'Slow down', type: 'rate_limit_error', param: null, code: 429 },
    });

    const failed = await apiCallErrorOf(chat.doGenerate(ask('Two')));
    expect(failed.statusCode).toBe(500);
    expect(failed.isRetryable).toBe(true);
    expect(failed.data).toMatchObject({ error: { type: 'api_error' } });
    model.assertComplete();
  });

  it('drops the connection for a networkError step', async () => {
    const { model, chat } = await serve([networkError()]);
    const error = await apiCallErrorOf(chat.doGenerate(ask('Anyone there?')));
    expect(error.statusCode).toBeUndefined();
    expect(error.isRetryable).toBe(true);
    expect(model.requests).toHaveLength(1);
    model.assertComplete();
  });

  it('routes concurrent requests by content and reads the prompt data', async () => {
    const { model, chat } = await serve(
      route({
        byAgent: { 'You review code': text('LGTM') },
        byPrompt: { 'Weigh this': (request) => text(`city=${String(requestData(request).city)}`) },
      }),
    );
    const review = chat.doGenerate({
      prompt: [
        { role: 'system', content: 'You review code.' },
        { role: 'user', content: [{ type: 'text', text: 'diff --git' }] },
      ],
    });
    const weigh = chat.doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Weigh this.\n\n<data>\n{\n  "city": "Oslo"\n}\n</data>' }] }],
    });
    const [reviewed, weighed] = await Promise.all([review, weigh]);

    expect(reviewed.content).toEqual([{ type: 'text', text: 'LGTM' }]);
    expect(weighed.content).toEqual([{ type: 'text', text: 'city=Oslo' }]);
    expect(model.requests).toHaveLength(2);
    model.assertComplete();
  });

  it('assertComplete() names unused steps and requests beyond the script', async () => {
    const { model, chat } = await serve([text('only one')]);
    await chat.doGenerate(ask('First'));
    const extra = await apiCallErrorOf(chat.doGenerate(ask('Second')));
    expect(extra.statusCode).toBe(400);
    expect(extra.isRetryable).toBe(false);
    expect(extra.message).toMatch(/unexpected request #2 \(model llama3\.2, first user text "Second"\)/);
    expect(() => model.assertComplete()).toThrow(ScriptError);

    const unused = await serve([text('used'), text('never')]);
    await unused.chat.doGenerate(ask('Once'));
    expect(() => unused.model.assertComplete()).toThrow(/1 script step was not used: #2 text\("never"\)/);
  });

  it('translates image parts into image blocks', async () => {
    const { model, chat } = await serve([text('A dot.')]);
    await chat.doGenerate({
      prompt: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
            { type: 'file', mediaType: 'image/jpeg', data: new URL('https://example.com/cat.jpg') },
          ],
        },
      ],
    });
    expect(model.requests[0]?.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        ],
      },
    ]);
  });
});

describe('serveChatCompletions over raw HTTP', () => {
  it('sends a malformed body step exactly as scripted', async () => {
    const malformed = '{"id": "chatcmpl-1", "choices": [{"message": {"content": "cut';
    const { model, server, chat } = await serve([rawResponse(200, malformed), rawResponse(200, malformed)]);

    const response = await fetch(`${server.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL_ID, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(malformed);
    expect(model.requests[0]?.body).toEqual({ model: MODEL_ID, messages: [{ role: 'user', content: 'hi' }] });

    // The provider fails on it as it would on a broken server.
    const error = await apiCallErrorOf(chat.doGenerate(ask('hi')));
    expect(error.message).toMatch(/Invalid JSON response/);
    model.assertComplete();
  });

  it('records a body that is not JSON as an empty request, and still answers it', async () => {
    const { model, server } = await serve([text('still here')]);
    const response = await fetch(`${server.baseURL}/chat/completions`, { method: 'POST', body: 'not json' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'still here' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
    });
    expect(model.requests[0]).toMatchObject({ rawBody: 'not json', body: { messages: [] }, chatCompletions: {} });
  });

  it('lists one model and answers unknown paths with a 404, taking no script step', async () => {
    const model = new ScriptedModel([]);
    const server = await serveChatCompletions(model, { modelId: 'llama3.2' });
    servers.push(server);

    const models = await fetch(`${server.baseURL}/models`);
    expect(await models.json()).toEqual({
      object: 'list',
      data: [{ id: 'llama3.2', object: 'model', created: 0, owned_by: 'groundswell' }],
    });
    const missing = await fetch(`${server.baseURL}/embeddings`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 404 } });
    expect(model.requests).toEqual([]);
    model.assertComplete();
  });

  it('close() stops the server and may be called twice', async () => {
    const model = new ScriptedModel([]);
    const server = await serveChatCompletions(model);
    expect(server.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    await server.close();
    await server.close();
    await expect(fetch(`${server.baseURL}/models`)).rejects.toThrow(TypeError);
  });
});
