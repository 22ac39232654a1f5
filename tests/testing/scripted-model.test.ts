import { Anthropic } from '@anthropic-ai/sdk';
import { zodOutputFormat } from '@anthropic-ai/sdk/helpers/zod';
import type { Message, MessageCreateParamsNonStreaming, Tool } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GroundswellError, UsageError } from 'groundswell';
import {
  DEFAULT_USAGE,
  httpError,
  json,
  malformedJson,
  message,
  networkError,
  rawResponse,
  ScriptedModel,
  ScriptError,
  stream,
  text,
  timeout,
  toolUse,
  type MessageStep,
} from 'groundswell/testing';

// Every test drives the real SDK client; only its fetch is scripted.
const MODEL = 'claude-haiku-4-5';

function ask(content: string, extra: Partial<MessageCreateParamsNonStreaming> = {}): MessageCreateParamsNonStreaming {
  return { model: MODEL, max_tokens: 256, messages: [{ role: 'user', content }], ...extra };
}

function textOf(reply: Message): string {
  return reply.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

function completionError(model: ScriptedModel): ScriptError {
  try {
    model.assertComplete();
  } catch (error) {
    if (error instanceof ScriptError) return error;
    throw error;
  }
  throw new Error('expected assertComplete() to throw');
}

const weatherTool: Tool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('ScriptedModel: replies through the real SDK client', () => {
  it('answers with a complete, well-formed Message', async () => {
    const model = new ScriptedModel([text('Hello there.')]);
    const reply = await model.client().messages.create(ask('Say hello'));

    expect(reply).toEqual({
      id: 'msg_scripted_0001',
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content: [{ type: 'text', text: 'Hello there.', citations: null }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      stop_details: null,
      container: null,
      diagnostics: null,
      usage: {
        ...DEFAULT_USAGE,
        cache_creation: {
          ephemeral_5m_input_tokens: DEFAULT_USAGE.cache_creation_input_tokens,
          ephemeral_1h_input_tokens: 0,
        },
        inference_geo: null,
        output_tokens_details: null,
        server_tool_use: null,
        service_tier: 'standard',
        speed: 'standard',
      },
    });
    expect(reply._request_id).toBe('req_scripted_0001');
    expect(DEFAULT_USAGE.input_tokens).toBeGreaterThan(0);
    // Only scripted usage is reported: no prompt-cache tokens nobody asked for.
    expect(reply.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    model.assertComplete();
  });

  it('takes usage, stop reason, model and id from the step options', async () => {
    const model = new ScriptedModel([
      text('cut', {
        usage: { input_tokens: 1200, output_tokens: 256, cache_creation_input_tokens: 0, cache_read_input_tokens: 900 },
        stopReason: 'max_tokens',
        model: 'claude-sonnet-4-6',
        messageId: 'msg_custom',
      }),
    ]);
    const reply = await model.client().messages.create(ask('Write a long essay'));

    expect(reply.stop_reason).toBe('max_tokens');
    expect(reply.model).toBe('claude-sonnet-4-6');
    expect(reply.id).toBe('msg_custom');
    expect(reply.usage).toMatchObject({
      input_tokens: 1200,
      output_tokens: 256,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 900,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    });
  });

  it('json() returns the value as the text of the reply, which the SDK parse() helper reads', async () => {
    const Answer = z.object({ answer: z.number(), reason: z.string() });
    const model = new ScriptedModel([json({ answer: 4, reason: 'arithmetic' }), json({ answer: 5, reason: 'again' })]);
    const client = model.client();

    const plain = await client.messages.create(
      ask('What is 2+2?', { output_config: { format: { type: 'json_schema', schema: { type: 'object' } } } }),
    );
    expect(JSON.parse(textOf(plain))).toEqual({ answer: 4, reason: 'arithmetic' });

    const parsed = await client.messages.parse({
      ...ask('And 2+3?'),
      output_config: { format: zodOutputFormat(Answer) },
    });
    expect(parsed.parsed_output).toEqual({ answer: 5, reason: 'again' });
    expect(model.requests[1]?.body.output_config).toMatchObject({ format: { type: 'json_schema' } });
    model.assertComplete();
  });

  it('malformedJson() returns text that is not JSON', async () => {
    const model = new ScriptedModel([malformedJson()]);
    const reply = await model.client().messages.create(ask('JSON please'));
    expect(() => JSON.parse(textOf(reply))).toThrow(SyntaxError);
  });

  it('toolUse() returns tool_use blocks with generated or given ids', async () => {
    const model = new ScriptedModel([
      toolUse('get_weather', { city: 'Paris' }),
      toolUse('get_weather', { city: 'Rome' }, { id: 'toolu_given', text: 'Checking Rome.' }),
      toolUse([
        { name: 'get_weather', input: { city: 'Oslo' } },
        { name: 'get_time', input: { zone: 'CET' }, id: 'toolu_time' },
      ]),
    ]);
    const client = model.client();

    const first = await client.messages.create(ask('Weather in Paris?', { tools: [weatherTool] }));
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([
      {
        type: 'tool_use',
        id: 'toolu_scripted_0001_1',
        name: 'get_weather',
        input: { city: 'Paris' },
        caller: { type: 'direct' },
      },
    ]);

    const second = await client.messages.create(ask('Weather in Rome?', { tools: [weatherTool] }));
    expect(second.content).toEqual([
      { type: 'text', text: 'Checking Rome.', citations: null },
      { type: 'tool_use', id: 'toolu_given', name: 'get_weather', input: { city: 'Rome' }, caller: { type: 'direct' } },
    ]);

    const third = await client.messages.create(ask('Oslo weather and time?', { tools: [weatherTool] }));
    const calls = third.content.map((block) =>
      block.type === 'tool_use' ? [block.id, block.name, block.input] : block.type,
    );
    expect(calls).toEqual([
      ['toolu_scripted_0003_1', 'get_weather', { city: 'Oslo' }],
      ['toolu_time', 'get_time', { zone: 'CET' }],
    ]);
    model.assertComplete();
  });

  it('message() gives full control over the Message', async () => {
    const model = new ScriptedModel([
      message({
        content: [
          { type: 'thinking', thinking: 'Two plus two.', signature: 'sig-1' },
          { type: 'text', text: 'Four' },
        ],
        stop_reason: 'stop_sequence',
        stop_sequence: '###',
        usage: { output_tokens: 42 },
      }),
    ]);
    const reply = await model.client().messages.create(ask('2+2?'));
    expect(reply.content).toEqual([
      { type: 'thinking', thinking: 'Two plus two.', signature: 'sig-1' },
      { type: 'text', text: 'Four', citations: null },
    ]);
    expect(reply.stop_reason).toBe('stop_sequence');
    expect(reply.stop_sequence).toBe('###');
    expect(reply.usage.output_tokens).toBe(42);
    expect(reply.usage.input_tokens).toBe(DEFAULT_USAGE.input_tokens);
  });

  it('the scripted fetch works detached, as the SDK calls it', async () => {
    const model = new ScriptedModel([text('hi')]);
    const { fetch } = model;
    const response = await fetch('http://scripted-model.invalid/v1/messages', {
      method: 'POST',
      body: JSON.stringify(ask('hello')),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({ type: 'message', model: MODEL });
  });
});

describe('ScriptedModel: SSE streams', () => {
  const cases: Array<[string, () => MessageStep]> = [
    ['text', () => text('The quick brown fox jumps over the lazy dog. ✨ Ünïcödé 🦊 too.')],
    ['json', () => json({ answer: 4, steps: ['add', 'check'], nested: { ok: true } })],
    [
      'tool_use with text',
      () =>
        toolUse(
          [
            { name: 'get_weather', input: { city: 'São Paulo', days: 3, detail: { wind: true } } },
            { name: 'get_time', input: {} },
          ],
          { text: 'Let me look that up.' },
        ),
    ],
    [
      'thinking',
      () =>
        message({
          content: [
            { type: 'thinking', thinking: 'Consider the question carefully before answering.', signature: 'sig-abc' },
            { type: 'text', text: 'Answer.' },
          ],
          usage: { output_tokens: 77, cache_read_input_tokens: 50 },
        }),
    ],
  ];

  it.each(cases)('%s: messages.stream().finalMessage() equals the non-streamed Message', async (_name, step) => {
    const plain = await new ScriptedModel([step()]).client().messages.create(ask('Go'));
    const streamModel = new ScriptedModel([stream(step(), { chunkSize: 5 })]);
    const final = await streamModel.client().messages.stream(ask('Go')).finalMessage();

    expect(final).toEqual({ ...plain, parsed_output: null });
    expect(streamModel.lastRequest?.stream).toBe(true);
    expect(streamModel.lastRequest?.headers['accept']).toBeDefined();
    streamModel.assertComplete();
  });

  it('create({ stream: true }) yields the API event sequence', async () => {
    const model = new ScriptedModel([stream(text('Hello world'), { chunkSize: 6 })]);
    const events = await model.client().messages.create({ ...ask('Hi'), stream: true });
    const seen: string[] = [];
    let streamedText = '';
    for await (const event of events) {
      seen.push(event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') streamedText += event.delta.text;
      if (event.type === 'message_delta') {
        expect(event.delta.stop_reason).toBe('end_turn');
        expect(event.usage).toMatchObject({
          output_tokens: DEFAULT_USAGE.output_tokens,
          input_tokens: DEFAULT_USAGE.input_tokens,
          cache_creation_input_tokens: DEFAULT_USAGE.cache_creation_input_tokens,
          cache_read_input_tokens: DEFAULT_USAGE.cache_read_input_tokens,
        });
      }
    }
    expect(seen).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(streamedText).toBe('Hello world');
  });

  it('streams tool input as input_json_delta chunks that the SDK reassembles', async () => {
    const call = toolUse('get_weather', { city: 'Lisbon', units: 'metric' });
    const model = new ScriptedModel([stream(call, { chunkSize: 4 })]);
    const messageStream = model.client().messages.stream(ask('Weather?', { tools: [weatherTool] }));
    const partials: string[] = [];
    messageStream.on('inputJson', (partial) => partials.push(partial));
    const final = await messageStream.finalMessage();

    expect(partials.length).toBeGreaterThan(3);
    expect(partials.join('')).toBe(JSON.stringify({ city: 'Lisbon', units: 'metric' }));
    expect(final.content[0]).toMatchObject({
      type: 'tool_use',
      name: 'get_weather',
      input: { city: 'Lisbon', units: 'metric' },
    });
    expect(final.stop_reason).toBe('tool_use');
  });

  it('any message step answers a streaming request as SSE', async () => {
    const model = new ScriptedModel([text('streamed anyway')]);
    const messageStream = model.client().messages.stream(ask('Hi'));
    const pieces: string[] = [];
    messageStream.on('text', (delta) => pieces.push(delta));
    expect(await messageStream.finalText()).toBe('streamed anyway');
    expect(pieces.join('')).toBe('streamed anyway');
  });

  it('a stream() step met by a non-streaming request is a script failure', async () => {
    const model = new ScriptedModel([stream(text('x'))]);
    const error = await rejectionOf(model.client().messages.create(ask('Hi')));
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(model.requests).toHaveLength(1);
    expect(completionError(model).failures[0]).toMatch(
      /request #1 did not ask for a stream, but script step #1 is stream\(text/,
    );
  });

  it('interruptWith ends the stream with an error event the SDK raises', async () => {
    const model = new ScriptedModel([stream(text('partial answer'), { interruptWith: { type: 'overloaded_error' } })]);
    const messageStream = model.client().messages.stream(ask('Hi'));
    const pieces: string[] = [];
    messageStream.on('text', (delta) => pieces.push(delta));
    const error = await rejectionOf(messageStream.finalMessage());

    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toMatchObject({ type: 'overloaded_error' });
    expect(pieces.join('')).toBe('partial answer');
  });

  it('retries a streaming request that first gets a 529', async () => {
    const model = new ScriptedModel([httpError(529), stream(text('after overload'))]);
    expect(await model.client().messages.stream(ask('Hi')).finalText()).toBe('after overload');
    expect(model.requests).toHaveLength(2);
    model.assertComplete();
  });
});

describe('ScriptedModel: the SDK retry policy runs for real', () => {
  it.each([429, 500, 529])('retries %i, then succeeds', async (status) => {
    const model = new ScriptedModel([httpError(status), httpError(status), text('finally')]);
    const reply = await model.client().messages.create(ask('Hi'));

    expect(textOf(reply)).toBe('finally');
    expect(model.requests).toHaveLength(3);
    expect(model.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1', '2']);
    model.assertComplete();
  });

  it.each([
    [429, Anthropic.RateLimitError, 'rate_limit_error'],
    [500, Anthropic.InternalServerError, 'api_error'],
    [529, Anthropic.OverloadedError, 'overloaded_error'],
  ] as const)('surfaces %i as its SDK error class when retries run out', async (status, ErrorClass, type) => {
    const model = new ScriptedModel([httpError(status), httpError(status)]);
    const error = await rejectionOf(model.client({ maxRetries: 1 }).messages.create(ask('Hi')));

    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toMatchObject({ status, type });
    expect(model.requests).toHaveLength(2);
    model.assertComplete();
  });

  it('529 is an InternalServerError too', async () => {
    const model = new ScriptedModel([httpError(529)]);
    const error = await rejectionOf(model.client({ maxRetries: 0 }).messages.create(ask('Hi')));
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
  });

  it.each([
    [400, Anthropic.BadRequestError],
    [401, Anthropic.AuthenticationError],
  ] as const)('does not retry %i', async (status, ErrorClass) => {
    const model = new ScriptedModel([httpError(status, { message: 'nope' }), text('never sent')]);
    const error = await rejectionOf(model.client().messages.create(ask('Hi')));

    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toMatchObject({ status, apiMessage: 'nope' });
    expect(model.requests).toHaveLength(1);
    expect(model.remaining).toBe(1);
  });

  it('obeys x-should-retry: false on a 500', async () => {
    const model = new ScriptedModel([httpError(500, { shouldRetry: false })]);
    await expect(model.client().messages.create(ask('Hi'))).rejects.toBeInstanceOf(Anthropic.InternalServerError);
    expect(model.requests).toHaveLength(1);
  });

  it('retries a network error (with the SDK backoff), then succeeds', async () => {
    const model = new ScriptedModel([networkError(), text('reconnected')]);
    const reply = await model.client({ maxRetries: 1 }).messages.create(ask('Hi'));
    expect(textOf(reply)).toBe('reconnected');
    expect(model.requests).toHaveLength(2);
    model.assertComplete();
  });

  it('surfaces connection failures as APIConnectionError / APIConnectionTimeoutError', async () => {
    const model = new ScriptedModel([networkError(), timeout()]);
    const client = model.client({ maxRetries: 0 });

    const refused = await rejectionOf(client.messages.create(ask('one')));
    expect(refused).toBeInstanceOf(Anthropic.APIConnectionError);
    expect(refused).not.toBeInstanceOf(Anthropic.APIConnectionTimeoutError);

    const timedOut = await rejectionOf(client.messages.create(ask('two')));
    expect(timedOut).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    model.assertComplete();
  });

  it('a delay longer than the client timeout trips the SDK timer', async () => {
    const model = new ScriptedModel([text('too late', { delayMs: 5_000 })]);
    const error = await rejectionOf(model.client({ timeout: 10, maxRetries: 0 }).messages.create(ask('Hi')));
    expect(error).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
  });

  it('rawResponse() with cutAfterBytes sends that many bytes, then the body fails like a dropped connection', async () => {
    const model = new ScriptedModel([rawResponse(200, '{"id":"msg_1","content":[]}', { cutAfterBytes: 8 })]);
    const response = await model.client({ maxRetries: 0 }).messages.create(ask('Hi')).asResponse();
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('{"id":"m');
    const error = await rejectionOf(reader.read());
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('terminated');
  });

  it('rawResponse() refuses a cutAfterBytes that is not a non-negative integer', () => {
    expect(() => rawResponse(200, 'x', { cutAfterBytes: -1 })).toThrow(UsageError);
    expect(() => stream(text('x'), { cutAfterEvents: 1.5 })).toThrow(UsageError);
  });

  it('stream() with cutAfterEvents drops the connection after that many events', async () => {
    const model = new ScriptedModel([stream(text('never finished'), { cutAfterEvents: 3 })]);
    const messageStream = model.client({ maxRetries: 0 }).messages.stream(ask('Hi'));
    const seen: string[] = [];
    messageStream.on('streamEvent', (event) => seen.push(event.type));
    const error = await rejectionOf(messageStream.finalMessage());
    expect(error).not.toBeInstanceOf(Anthropic.APIError);
    expect((error as Error).message).toBe('terminated');
    // message_start, ping (not a stream event), content_block_start.
    expect(seen).toEqual(['message_start', 'content_block_start']);
  });

  it('rawResponse() sends any status and body', async () => {
    const model = new ScriptedModel([rawResponse(503, 'upstream unavailable')]);
    const error = await rejectionOf(model.client({ maxRetries: 0 }).messages.create(ask('Hi')));
    expect(error).toBeInstanceOf(Anthropic.ServiceUnavailableError);
    expect(error).toMatchObject({ status: 503 });
  });
});

describe('ScriptedModel: responder function', () => {
  it('answers each request from the request itself', async () => {
    const seen: number[] = [];
    const model = new ScriptedModel(async (request, index) => {
      seen.push(index);
      const last = request.body.messages?.at(-1);
      const hasToolResult =
        Array.isArray(last?.content) && last.content.some((block) => block.type === 'tool_result');
      return hasToolResult ? text('It is sunny in Paris.') : toolUse('get_weather', { city: 'Paris' });
    });
    const client = model.client();
    const question = ask('Weather in Paris?', { tools: [weatherTool] });

    const first = await client.messages.create(question);
    const call = first.content[0];
    if (call?.type !== 'tool_use') throw new Error('expected a tool_use block');
    const second = await client.messages.create({
      ...question,
      messages: [
        ...question.messages,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '22°C, sunny' }] },
      ],
    });

    expect(textOf(second)).toBe('It is sunny in Paris.');
    expect(seen).toEqual([0, 1]);
    expect(model.requests[1]?.firstUserText).toBe('Weather in Paris?');
    expect(model.requests[1]?.lastUserText).toBeUndefined();
    model.assertComplete();
  });

  it('a throwing responder becomes a non-retried 400 and fails assertComplete()', async () => {
    const boom = new Error('no rule for this prompt');
    const model = new ScriptedModel(() => {
      throw boom;
    });
    const error = await rejectionOf(model.client().messages.create(ask('Hi')));

    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(model.requests).toHaveLength(1);
    const scriptError = completionError(model);
    expect(scriptError.failures).toEqual(['ScriptedModel: the responder threw on request #1: no rule for this prompt']);
    expect(scriptError.cause).toBe(boom);
  });
});

describe('ScriptedModel: recorded requests', () => {
  it('records method, path, headers and the parsed body the SDK built', async () => {
    const model = new ScriptedModel([text('ok')]);
    await model.client().messages.create({
      model: MODEL,
      max_tokens: 512,
      system: 'You are terse.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather?' }] }],
      tools: [weatherTool],
      tool_choice: { type: 'auto' },
      output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: {} } } },
    });

    const request = model.lastRequest;
    expect(request).toBe(model.requests[0]);
    expect(request).toMatchObject({
      index: 0,
      method: 'POST',
      path: '/v1/messages',
      url: 'http://scripted-model.invalid/v1/messages',
      model: MODEL,
      stream: false,
      firstUserText: 'Weather?',
      lastUserText: 'Weather?',
    });
    // SDK 1.14 sends an API key as a bearer token.
    expect(request?.headers['authorization']).toBe('Bearer scripted-test-key');
    expect(request?.headers['anthropic-version']).toBeDefined();
    expect(request?.body.system).toBe('You are terse.');
    expect(request?.body.max_tokens).toBe(512);
    expect(request?.body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Weather?' }] }]);
    expect(request?.body.tools).toEqual([weatherTool]);
    expect(request?.body.tool_choice).toEqual({ type: 'auto' });
    expect(request?.body.output_config).toEqual({
      format: { type: 'json_schema', schema: { type: 'object', properties: {} } },
    });
  });
});

describe('ScriptedModel: script bookkeeping', () => {
  it('an unexpected extra call is a BadRequestError, not retried, and fails assertComplete()', async () => {
    const model = new ScriptedModel([text('only answer')]);
    const client = model.client();
    await client.messages.create(ask('First question'));
    const error = await rejectionOf(client.messages.create(ask('Second question')));

    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    if (!(error instanceof Anthropic.BadRequestError)) throw error;
    expect(error.apiMessage).toMatch(/^ScriptedModel: unexpected request #2 /);
    expect(error.apiMessage).toContain(MODEL);
    expect(error.apiMessage).toContain('"Second question"');
    expect(error.message).toContain('ScriptedModel: unexpected request #2');
    expect(model.requests).toHaveLength(2);

    const scriptError = completionError(model);
    expect(scriptError).toBeInstanceOf(GroundswellError);
    expect(scriptError.failures).toHaveLength(1);
    expect(scriptError.failures[0]).toMatch(/^ScriptedModel: unexpected request #2 /);
    expect(scriptError.unusedSteps).toEqual([]);
    expect(model.failures).toEqual(scriptError.failures);
  });

  it('unused steps fail assertComplete(), naming how many and which', async () => {
    const model = new ScriptedModel([text('used'), httpError(429), toolUse('get_weather', { city: 'Oslo' })]);
    await model.client().messages.create(ask('Hi'));
    expect(model.remaining).toBe(2);

    const scriptError = completionError(model);
    expect(scriptError.unusedSteps).toEqual(['#2 httpError(429 rate_limit_error)', '#3 toolUse(get_weather)']);
    expect(scriptError.message).toContain('2 script steps were not used');
    expect(scriptError.failures).toEqual([]);
  });

  it('push() extends the script', async () => {
    const model = new ScriptedModel([]);
    model.push(text('late addition'));
    expect(textOf(await model.client().messages.create(ask('Hi')))).toBe('late addition');
    model.assertComplete();
    expect(() => new ScriptedModel(() => text('x')).push(text('y'))).toThrow(UsageError);
  });

  it('builders refuse what the API could never send', () => {
    expect(() => httpError(200)).toThrow(UsageError);
    expect(() => json(undefined)).toThrow(UsageError);
    expect(() => json(10n)).toThrow(UsageError);
    expect(() => toolUse([])).toThrow(UsageError);
  });
});
