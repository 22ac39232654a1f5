import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AgentError,
  createAgent,
  createPrompt,
  defineTool,
  GroundswellError,
  isRetryable,
  MalformedResponseError,
  WorkflowError,
  type Agent,
} from 'groundswell';
import { json, rawResponse, ScriptedModel, stream, toolUse, type ScriptStep } from 'groundswell/testing';
import { Answer, failed, onlyChild, runInStep, runningNodes } from '../support/agent-helpers.js';
import { eventsOfType } from '../support/events.js';
import { agentModel, nativeOnly } from '../support/model-path.js';

const JSON_TYPE = { 'content-type': 'application/json' };
const SSE_TYPE = { 'content-type': 'text/event-stream' };

/** A complete, valid Messages-API message answering `{"answer":"hi"}`, as the API would send it. */
const GOOD_MESSAGE = JSON.stringify({
  id: 'msg_raw',
  type: 'message',
  role: 'assistant',
  model: 'claude-haiku-4-5',
  content: [{ type: 'text', text: '{"answer":"hi"}' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 5, output_tokens: 3 },
});

function message(fields: Record<string, unknown>): string {
  return JSON.stringify({ ...JSON.parse(GOOD_MESSAGE), ...fields });
}

/** 200 answers that are not a Messages-API message, for a non-streaming request. */
const BAD_BODIES: ReadonlyArray<[string, ScriptStep, RegExp]> = [
  [
    'an HTML page from a proxy',
    rawResponse(200, '<!DOCTYPE html><html><body><h1>Sign in to the corporate proxy</h1></body></html>', {
      headers: { 'content-type': 'text/html; charset=utf-8' },
    }),
    /the body is text, not JSON: "<!DOCTYPE html><html><body><h1>Sign in/,
  ],
  ['an empty object', rawResponse(200, {}), /`content` is not an array/],
  ['JSON null', rawResponse(200, 'null', { headers: JSON_TYPE }), /the body is null, not a message object/],
  ['a JSON array', rawResponse(200, '[1,2]', { headers: JSON_TYPE }), /not a message object/],
  ['truncated JSON', rawResponse(200, GOOD_MESSAGE.slice(0, 60), { headers: JSON_TYPE }), /its body could not be read \(.*JSON/],
  ['a body cut mid-way by the connection', rawResponse(200, GOOD_MESSAGE, { headers: JSON_TYPE, cutAfterBytes: 50 }), /its body could not be read \(terminated\)/],
  ['an empty JSON body', rawResponse(200, '', { headers: JSON_TYPE }), /its body could not be read/],
  ['content that is a string', rawResponse(200, message({ content: 'hi' }), { headers: JSON_TYPE }), /`content` is not an array/],
  ['a block without a type', rawResponse(200, message({ content: [{ text: 'x' }] }), { headers: JSON_TYPE }), /content\[0\] is not a content block/],
  ['a text block without text', rawResponse(200, message({ content: [{ type: 'text' }] }), { headers: JSON_TYPE }), /content\[0\] is a text block without text/],
  [
    'a tool_use block without an id',
    rawResponse(200, message({ content: [{ type: 'tool_use', name: 'add', input: {} }], stop_reason: 'tool_use' }), { headers: JSON_TYPE }),
    /content\[0\] is a tool_use block without id or name/,
  ],
  [
    'a tool_use block whose input is a string',
    rawResponse(200, message({ content: [{ type: 'tool_use', id: 't1', name: 'add', input: '{}' }], stop_reason: 'tool_use' }), {
      headers: JSON_TYPE,
    }),
    /input is not an object/,
  ],
  ['a null stop_reason', rawResponse(200, message({ stop_reason: null }), { headers: JSON_TYPE }), /`stop_reason` is null: the answer ended before/],
  ['no stop_reason', rawResponse(200, message({ stop_reason: undefined }), { headers: JSON_TYPE }), /`stop_reason` is missing/],
  ['no usage', rawResponse(200, message({ usage: undefined }), { headers: JSON_TYPE }), /`usage` is missing/],
  ['usage with a string count', rawResponse(200, message({ usage: { input_tokens: '5', output_tokens: 3 } }), { headers: JSON_TYPE }), /usage\.input_tokens/],
  ['no model', rawResponse(200, message({ model: undefined }), { headers: JSON_TYPE }), /`model` is missing/],
  [
    'an error object with a 200 status',
    rawResponse(200, { type: 'error', error: { type: 'overloaded_error', message: 'busy' } }),
    /the body is an error object: .*overloaded_error/,
  ],
];

function askInStep(agent: Agent, streamed = false) {
  const prompt = createPrompt({ user: 'go', responseFormat: Answer });
  return runInStep(() => (streamed ? agent.stream(prompt).finalValue() : agent.prompt(prompt)));
}

async function expectMalformed(model: ScriptedModel, agent: Agent, problem: RegExp, streamed = false): Promise<MalformedResponseError> {
  const run = await askInStep(agent, streamed);
  const error = failed(run.outcome);
  expect(error).toBeInstanceOf(WorkflowError);
  const cause = (error as WorkflowError).cause;
  expect(cause).not.toBeInstanceOf(TypeError);
  expect(cause).not.toBeInstanceOf(SyntaxError);
  expect(cause).toBeInstanceOf(MalformedResponseError);
  expect(cause).toBeInstanceOf(AgentError);
  expect(cause).toBeInstanceOf(GroundswellError);
  const malformed = cause as MalformedResponseError;
  expect(malformed.message).toMatch(/^Agent "relay": The API answered 200 but not with a Messages-API message: /);
  expect(malformed.problem).toMatch(problem);
  expect(malformed.status).toBe(200);
  expect(malformed.requestId).toBe('req_scripted_0001');
  expect(malformed.agentName).toBe('relay');

  const promptNode = onlyChild(run.step, 'agentPrompt');
  expect(promptNode.status).toBe('failed');
  expect(runningNodes(run.workflow.node)).toEqual([]);
  const apiErrors = eventsOfType(run.recording.events, 'apiError');
  expect(apiErrors).toEqual([
    expect.objectContaining({ nodeId: promptNode.id, agentName: 'relay', attempt: 1, status: 200, message: expect.stringMatching(problem) }),
  ]);
  const [end] = eventsOfType(run.recording.events, 'agentPromptEnd');
  expect(end).toMatchObject({ status: 'failed', error: { name: 'MalformedResponseError' } });
  // The SDK reads the body after its retries: a malformed 200 is one attempt, whatever maxRetries says.
  expect(model.requests).toHaveLength(1);
  model.assertComplete();
  return malformed;
}

describe('a 200 answer that is not a Messages-API message (non-streaming)', () => {
  it.each(BAD_BODIES)('%s: a MalformedResponseError, an apiError event, the node failed, no retry', async (_label, step, problem) => {
    const model = new ScriptedModel([step]);
    const agent = createAgent({ name: 'relay', client: model.client({ maxRetries: 2, logLevel: 'off' }) });
    await expectMalformed(model, agent, problem);
  });

  it('keeps the parse error as cause when the body could not be parsed', async () => {
    const model = new ScriptedModel([rawResponse(200, '{"id": "msg_', { headers: JSON_TYPE })]);
    const agent = createAgent({ name: 'relay', client: model.client({ maxRetries: 0 }) });
    const error = await expectMalformed(model, agent, /could not be read/);
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it('is retryable, so a step retry policy may ask again and succeed', async () => {
    const model = new ScriptedModel([rawResponse(200, {}), json({ answer: 'second try' })]);
    const agent = createAgent({ name: 'relay', client: model.client({ maxRetries: 0 }) });
    const prompt = createPrompt({ user: 'go', responseFormat: Answer });
    const run = await runInStep((ctx) =>
      ctx.step('inner', () => agent.prompt(prompt), { retry: { maxAttempts: 2, backoffMs: 0, retryOn: isRetryable } }),
    );
    expect(run.outcome).toEqual({ ok: true, value: { answer: 'second try' } });
    expect(eventsOfType(run.recording.events, 'apiError').map((e) => e.status)).toEqual([200]);
    model.assertComplete();
  });

  it('a malformed answer in the middle of a tool loop fails the call; the finished tool node stays completed', async () => {
    const noop = defineTool({ name: 'noop', description: 'Nothing.', input: z.object({}), execute: () => 'ok' });
    const model = new ScriptedModel([toolUse('noop', {}), rawResponse(200, '<html>gateway</html>', { headers: { 'content-type': 'text/html' } })]);
    const agent = createAgent({ name: 'relay', client: model.client({ maxRetries: 1 }), tools: [noop] });
    const run = await askInStep(agent);
    const cause = (failed(run.outcome) as WorkflowError).cause;
    expect(cause).toBeInstanceOf(MalformedResponseError);
    expect((cause as MalformedResponseError).requestId).toBe('req_scripted_0002');
    const promptNode = onlyChild(run.step, 'agentPrompt');
    expect(onlyChild(promptNode, 'toolCall').status).toBe('completed');
    expect(promptNode.status).toBe('failed');
    expect(runningNodes(run.workflow.node)).toEqual([]);
    // The first turn was paid for and still counts.
    expect(eventsOfType(run.recording.events, 'agentPromptEnd')).toEqual([expect.objectContaining({ status: 'failed', turns: 1 })]);
    model.assertComplete();
  });

  it('outside a workflow, agent.prompt() rejects with the MalformedResponseError itself', async () => {
    const model = new ScriptedModel([rawResponse(200, {})]);
    const agent = createAgent({ name: 'relay', ...(await agentModel(model)) });
    await expect(agent.prompt(createPrompt({ user: 'go', responseFormat: Answer }))).rejects.toBeInstanceOf(MalformedResponseError);
    model.assertComplete();
  });

  // A Messages-API body on the wire: the Anthropic path only.
  nativeOnly('a minimal but complete message (no optional fields, an unknown block type) is accepted', async () => {
    const body = message({
      content: [{ type: 'some_future_block', data: 1 }, { type: 'text', text: '{"answer":"hi"}' }],
      stop_sequence: undefined,
      role: undefined,
    });
    const model = new ScriptedModel([rawResponse(200, body, { headers: JSON_TYPE })]);
    const agent = createAgent({ name: 'relay', ...(await agentModel(model)) });
    expect(await agent.prompt(createPrompt({ user: 'go', responseFormat: Answer }))).toEqual({ answer: 'hi' });
    model.assertComplete();
  });
});

/** The SSE lines of a good streamed answer, up to (not including) message_delta. */
const UNFINISHED_STREAM = [
  `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { ...JSON.parse(GOOD_MESSAGE), content: [], stop_reason: null } })}\n\n`,
  `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n`,
  `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '{"answer":"hi"}' } })}\n\n`,
  `event: content_block_stop\ndata: ${JSON.stringify({ type: 'content_block_stop', index: 0 })}\n\n`,
].join('');

const BAD_STREAMS: ReadonlyArray<[string, ScriptStep, RegExp]> = [
  ['a stream whose connection drops after two events', stream(json({ answer: 'hi' }), { cutAfterEvents: 2 }), /could not be read \(terminated\)/],
  ['a stream that ends before anything arrived', stream(json({ answer: 'hi' }), { cutAfterEvents: 0 }), /could not be read/],
  [
    'a stream carrying garbage',
    rawResponse(200, 'event: message_start\ndata: {this is not json\n\n', { headers: SSE_TYPE }),
    /could not be read \(.*JSON/,
  ],
  [
    'a stream that closes before the model finished (no message_delta)',
    rawResponse(200, UNFINISHED_STREAM, { headers: SSE_TYPE }),
    /could not be read \(stream ended without producing a Message/,
  ],
  ['an HTML page answering a streaming request', rawResponse(200, '<html><body>proxy</body></html>', { headers: { 'content-type': 'text/html' } }), /could not be read/],
  [
    'a stream whose events come in the wrong order',
    rawResponse(200, `${UNFINISHED_STREAM}${UNFINISHED_STREAM}`, { headers: SSE_TYPE }),
    /could not be read \(Unexpected event order/,
  ],
];

describe('a streamed 200 answer that is cut or carries garbage', () => {
  it.each(BAD_STREAMS)('%s: a MalformedResponseError with an apiError event, never a raw error', async (_label, step, problem) => {
    const model = new ScriptedModel([step]);
    const agent = createAgent({ name: 'relay', client: model.client({ maxRetries: 2, logLevel: 'off' }) });
    await expectMalformed(model, agent, problem, true);
  });

  it('agent.stream() outside a workflow rejects finalValue() and the iteration with the same MalformedResponseError', async () => {
    const model = new ScriptedModel([stream(json({ answer: 'hi' }), { cutAfterEvents: 3 })]);
    const agent = createAgent({ name: 'relay', ...(await agentModel(model)) });
    const answer = agent.stream(createPrompt({ user: 'go', responseFormat: Answer }));
    const error = await answer.finalValue().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(MalformedResponseError);
    await expect((async () => {
      for await (const _event of answer) {
        // drain
      }
    })()).rejects.toBe(error);
    model.assertComplete();
  });
});
