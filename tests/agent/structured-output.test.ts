import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AgentError,
  createAgent,
  createPrompt,
  GroundswellError,
  StructuredOutputError,
  WorkflowError,
  type Prompt,
} from 'groundswell';
import { json, malformedJson, message, ScriptedModel, text, toolUse } from 'groundswell/testing';
import { adder, Answer, failed, runInStep, toolNamesOf } from '../support/agent-helpers.js';
import { caught } from '../support/decorators-helpers.js';
import { agentModel } from '../support/model-path.js';

const Order = z.object({
  id: z.string(),
  customer: z.object({ name: z.string(), address: z.object({ city: z.string() }) }),
  items: z.array(z.object({ sku: z.string(), qty: z.number().int() })),
  tags: z.array(z.string()),
});
const GOOD_ORDER = {
  id: 'o-1',
  customer: { name: 'Ada', address: { city: 'London' } },
  items: [{ sku: 'a', qty: 1 }],
  tags: ['new'],
};

/** The StructuredOutputError an agent call rejects with. */
async function outputError(model: ScriptedModel, prompt: Prompt<unknown>, mode: 'native' | 'tool' = 'native'): Promise<StructuredOutputError> {
  const agent = createAgent({ name: 'shaper', ...(await agentModel(model)), structuredOutput: mode });
  const error = await caught(() => agent.prompt(prompt));
  expect(error).toBeInstanceOf(StructuredOutputError);
  return error as StructuredOutputError;
}

describe('native mode (the default)', () => {
  it('sends output_config.format with the JSON schema of the zod schema, and no tool_choice', async () => {
    const model = new ScriptedModel([json(GOOD_ORDER)]);
    const agent = createAgent({ name: 'orders', ...(await agentModel(model)) });
    await expect(agent.prompt(createPrompt({ user: 'parse', responseFormat: Order }))).resolves.toEqual(GOOD_ORDER);
    const body = model.requests[0]?.body;
    expect(body?.output_config?.format).toMatchObject({
      type: 'json_schema',
      schema: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          customer: {
            type: 'object',
            properties: { name: { type: 'string' }, address: { type: 'object', properties: { city: { type: 'string' } } } },
          },
          items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } } } },
          tags: { type: 'array', items: { type: 'string' } },
        },
        required: expect.arrayContaining(['id', 'customer', 'items', 'tags']),
        additionalProperties: false,
      },
    });
    expect(body).not.toHaveProperty('tool_choice');
    expect(body).not.toHaveProperty('tools');
    model.assertComplete();
  });

  it('keeps sending output_config on every turn of a tool loop', async () => {
    const model = new ScriptedModel([toolUse('add', { a: 1, b: 2 }), json({ answer: '3' })]);
    const agent = createAgent({ name: 'calc', ...(await agentModel(model)), tools: [adder().tool] });
    await agent.prompt(createPrompt({ user: '1+2', responseFormat: Answer }));
    for (const request of model.requests) {
      expect(request.body.output_config?.format).toMatchObject({ type: 'json_schema' });
      expect(request.body).not.toHaveProperty('tool_choice');
    }
    model.assertComplete();
  });

  it('reads the answer from all text blocks of the final message', async () => {
    const model = new ScriptedModel([
      message({
        content: [
          { type: 'text', text: '{"answer":' },
          { type: 'text', text: '"split"}' },
        ],
      }),
    ]);
    const agent = createAgent({ name: 'split', ...(await agentModel(model)) });
    await expect(agent.prompt(createPrompt({ user: 'go', responseFormat: Answer }))).resolves.toEqual({ answer: 'split' });
    model.assertComplete();
  });
});

describe('tool mode (structuredOutput: "tool")', () => {
  it('sends a final_answer tool whose input schema is the answer schema, forces it, and reads its input', async () => {
    const model = new ScriptedModel([toolUse('final_answer', GOOD_ORDER)]);
    const agent = createAgent({ name: 'orders', ...(await agentModel(model)), structuredOutput: 'tool' });
    await expect(agent.prompt(createPrompt({ user: 'parse', responseFormat: Order }))).resolves.toEqual(GOOD_ORDER);
    const body = model.requests[0]?.body;
    expect(body?.tools).toEqual([
      expect.objectContaining({
        name: 'final_answer',
        input_schema: expect.objectContaining({
          type: 'object',
          properties: expect.objectContaining({ id: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }),
        }),
      }),
    ]);
    expect(body?.tool_choice).toEqual({ type: 'tool', name: 'final_answer' });
    expect(body).not.toHaveProperty('output_config');
    model.assertComplete();
  });

  it('with other tools: offers them next to final_answer, requires some tool, and ends at final_answer', async () => {
    const { tool, calls } = adder();
    const model = new ScriptedModel([toolUse('add', { a: 2, b: 2 }), toolUse('final_answer', { answer: '4' })]);
    const agent = createAgent({ name: 'calc', ...(await agentModel(model)), tools: [tool] });
    const result = await agent.execute(createPrompt({ user: '2+2', responseFormat: Answer, structuredOutput: 'tool' }));
    expect(result.value).toEqual({ answer: '4' });
    expect(result.turns).toBe(2);
    expect(calls).toEqual([{ a: 2, b: 2 }]);
    for (const request of model.requests) {
      expect(toolNamesOf(request.body)).toEqual(['add', 'final_answer']);
      expect(request.body.tool_choice).toEqual({ type: 'any' });
      expect(request.body).not.toHaveProperty('output_config');
    }
    // final_answer is not a real tool: no toolCall record for it.
    expect(result.toolCalls.map((c) => c.name)).toEqual(['add']);
    model.assertComplete();
  });

  it('a final_answer input that fails the schema is a schema_mismatch', async () => {
    const model = new ScriptedModel([toolUse('final_answer', { answer: 42 })]);
    const error = await outputError(model, createPrompt({ user: 'go', responseFormat: Answer }), 'tool');
    expect(error.reason).toBe('schema_mismatch');
    expect(error.issues.map((i) => i.path)).toEqual(['answer']);
    expect(error.raw).toEqual({ answer: 42 });
    model.assertComplete();
  });

  it('a reply without any final_answer call is missing_output', async () => {
    const model = new ScriptedModel([text('I think the answer is 4.')]);
    const error = await outputError(model, createPrompt({ user: 'go', responseFormat: Answer }), 'tool');
    expect(error.reason).toBe('missing_output');
    model.assertComplete();
  });
});

describe('StructuredOutputError', () => {
  it('is an AgentError (and a GroundswellError) naming the agent', async () => {
    const model = new ScriptedModel([malformedJson()]);
    const error = await outputError(model, createPrompt({ user: 'go', responseFormat: Answer }));
    expect(error).toBeInstanceOf(AgentError);
    expect(error).toBeInstanceOf(GroundswellError);
    expect(error.agentName).toBe('shaper');
    expect(error.message).toContain('shaper');
    model.assertComplete();
  });

  it('invalid JSON: reason invalid_json, with the raw text kept', async () => {
    const cut = '{"answer": "the model stopped mid-';
    const model = new ScriptedModel([malformedJson(cut, { stopReason: 'max_tokens' })]);
    const error = await outputError(model, createPrompt({ user: 'go', responseFormat: Answer }));
    expect(error.reason).toBe('invalid_json');
    expect(error.raw).toBe(cut);
    expect(error.message).toMatch(/JSON/);
    model.assertComplete();
  });

  it('prose around JSON is invalid_json: the answer is never fished out of text', async () => {
    const model = new ScriptedModel([text('Sure! Here it is: {"answer": "x"} Hope that helps.')]);
    const error = await outputError(model, createPrompt({ user: 'go', responseFormat: Answer }));
    expect(error.reason).toBe('invalid_json');
    model.assertComplete();
  });

  it('schema mismatch: reason schema_mismatch, issues for every failing path (nested and array), all named in the message', async () => {
    const bad = {
      id: 17,
      customer: { name: 'Ada', address: { city: null } },
      items: [
        { sku: 'a', qty: 1 },
        { sku: 'b', qty: 'two' },
        { qty: 3 },
      ],
      tags: ['ok', 5],
    };
    const model = new ScriptedModel([json(bad)]);
    const error = await outputError(model, createPrompt({ user: 'parse', responseFormat: Order }));
    expect(error.reason).toBe('schema_mismatch');
    const paths = error.issues.map((issue) => issue.path);
    expect([...paths].sort()).toEqual(['customer.address.city', 'id', 'items.1.qty', 'items.2.sku', 'tags.1'].sort());
    for (const issue of error.issues) {
      expect(issue.message.length).toBeGreaterThan(0);
      expect(error.message).toContain(issue.path);
    }
    expect(error.raw).toBe(JSON.stringify(bad));
    model.assertComplete();
  });

  it('a wrong root type names the root', async () => {
    const model = new ScriptedModel([json(['not', 'an', 'object'])]);
    const error = await outputError(model, createPrompt({ user: 'go', responseFormat: Answer }));
    expect(error.reason).toBe('schema_mismatch');
    expect(error.issues).toEqual([expect.objectContaining({ path: '' })]);
    expect(error.message).toContain('(root)');
    model.assertComplete();
  });

  it.each([
    ['an empty text', () => text('')],
    ['only whitespace', () => text('  \n ')],
    ['no content blocks at all', () => message({ content: [] })],
  ])('an empty answer (%s) is missing_output', async (_label, step) => {
    const model = new ScriptedModel([step()]);
    const error = await outputError(model, createPrompt({ user: 'go', responseFormat: Answer }));
    expect(error.reason).toBe('missing_output');
    expect(error.issues).toEqual([]);
    model.assertComplete();
  });

  it('fails the step with a WorkflowError whose cause is the StructuredOutputError', async () => {
    const model = new ScriptedModel([json({ wrong: true })]);
    const agent = createAgent({ name: 'shaper', ...(await agentModel(model)) });
    const run = await runInStep(() => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })));
    const error = failed(run.outcome);
    expect(error).toBeInstanceOf(WorkflowError);
    const cause = (error as WorkflowError).cause;
    expect(cause).toBeInstanceOf(StructuredOutputError);
    expect((cause as StructuredOutputError).reason).toBe('schema_mismatch');
    expect((cause as StructuredOutputError).issues.map((i) => i.path)).toEqual(['answer']);
    model.assertComplete();
  });
});
