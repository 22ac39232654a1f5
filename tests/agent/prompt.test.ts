import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, Prompt, UsageError } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { Answer, messagesOf } from '../support/agent-helpers.js';
import { caught } from '../support/decorators-helpers.js';
import { agentModel } from '../support/model-path.js';

/** A plain assignment, which throws a TypeError on a frozen object in strict mode (ES modules are strict). */
function assign(target: object, key: string, value: unknown): void {
  (target as Record<string, unknown>)[key] = value;
}

describe('createPrompt', () => {
  it('builds a Prompt holding the user message, data, schema and its own settings', () => {
    const prompt = createPrompt({
      user: 'Summarise the ticket',
      data: { ticket: 42 },
      responseFormat: Answer,
      system: 'You are terse.',
      maxTokens: 300,
    });
    expect(prompt).toBeInstanceOf(Prompt);
    expect(prompt.user).toBe('Summarise the ticket');
    expect(prompt.data).toEqual({ ticket: 42 });
    expect(prompt.responseFormat).toBe(Answer);
    expect(prompt.settings).toEqual({ system: 'You are terse.', maxTokens: 300 });
    expect(prompt.name).toBe('Summarise the ticket');
    expect(createPrompt({ user: 'x', name: 'label', responseFormat: Answer }).name).toBe('label');
  });

  it('names itself after the start of a long user message when no name is given', () => {
    const user = 'Please read the attached incident report and list every action item';
    const prompt = createPrompt({ user, responseFormat: Answer });
    expect(prompt.name.length).toBeLessThanOrEqual(40);
    expect(user.startsWith(prompt.name.replace(/\.\.\.$|…$/, ''))).toBe(true);
  });

  it('gives every prompt its own id', () => {
    const ids = new Set([1, 2, 3].map(() => createPrompt({ user: 'same', responseFormat: Answer }).id));
    expect(ids.size).toBe(3);
  });

  it('new Prompt(config) is the same as createPrompt(config)', () => {
    const prompt = new Prompt({ user: 'hello', responseFormat: Answer });
    expect(prompt.user).toBe('hello');
    expect(prompt.responseFormat).toBe(Answer);
    expect(Object.isFrozen(prompt)).toBe(true);
  });
});

describe('agent.prompt(prompt)', () => {
  it('resolves to the answer parsed by the prompt schema (defaults applied)', async () => {
    const schema = z.object({ title: z.string(), priority: z.number().default(3) });
    const model = new ScriptedModel([json({ title: 'Fix login' })]);
    const agent = createAgent({ name: 'triage', ...(await agentModel(model)) });
    const value = await agent.prompt(createPrompt({ user: 'Triage this', responseFormat: schema }));
    expect(value).toEqual({ title: 'Fix login', priority: 3 });
    model.assertComplete();
  });

  it('sends the user message with the data as JSON, and only the text when there is no data', async () => {
    const model = new ScriptedModel([json({ answer: 'a' }), json({ answer: 'b' })]);
    const agent = createAgent({ name: 'reader', ...(await agentModel(model)) });
    await agent.prompt(createPrompt({ user: 'Read this', data: { id: 7, tags: ['x'] }, responseFormat: Answer }));
    await agent.prompt(createPrompt({ user: 'Just text', responseFormat: Answer }));
    const [withData] = messagesOf(model.requests[0]);
    expect(withData?.role).toBe('user');
    expect(typeof withData?.content).toBe('string');
    const content = String(withData?.content);
    expect(content.startsWith('Read this')).toBe(true);
    const embedded = content.slice(content.indexOf('{'), content.lastIndexOf('}') + 1);
    expect(JSON.parse(embedded)).toEqual({ id: 7, tags: ['x'] });
    expect(messagesOf(model.requests[1])).toEqual([{ role: 'user', content: 'Just text' }]);
    model.assertComplete();
  });

  it('refuses something that is not a Prompt with a UsageError and sends nothing', async () => {
    const model = new ScriptedModel([]);
    const agent = createAgent({ name: 'strict', ...(await agentModel(model)) });
    const notAPrompt: unknown = { user: 'hi', responseFormat: Answer };
    const error = await caught(() => agent.prompt(notAPrompt as Prompt<unknown>));
    expect(error).toBeInstanceOf(UsageError);
    expect(String((error as Error).message)).toContain('Prompt');
    expect(model.requests).toHaveLength(0);
    model.assertComplete();
  });

  // The model produces the schema's input side; zod then transforms it on our side.
  it('works with a schema that transforms: the prompt resolves to the transformed output', async () => {
    const schema = z.object({ due: z.string().transform((s) => new Date(s)) });
    const model = new ScriptedModel([json({ due: '2024-05-01T00:00:00.000Z' })]);
    const agent = createAgent({ name: 'dates', ...(await agentModel(model)) });
    const value = await agent.prompt(createPrompt({ user: 'When?', responseFormat: schema }));
    expect(value.due).toBeInstanceOf(Date);
    expect(value.due.toISOString()).toBe('2024-05-01T00:00:00.000Z');
    model.assertComplete();
  });
});

describe('prompts are immutable', () => {
  it('the prompt, its data and its settings are frozen: assignment throws in strict mode', () => {
    const prompt = createPrompt({ user: 'hi', data: { a: 1 }, responseFormat: Answer, model: 'm' });
    expect(Object.isFrozen(prompt)).toBe(true);
    expect(Object.isFrozen(prompt.data)).toBe(true);
    expect(Object.isFrozen(prompt.settings)).toBe(true);
    expect(() => assign(prompt, 'user', 'changed')).toThrow(TypeError);
    expect(() => assign(prompt, 'responseFormat', z.string())).toThrow(TypeError);
    expect(() => assign(prompt.data, 'a', 2)).toThrow(TypeError);
    expect(() => assign(prompt.data, 'b', 2)).toThrow(TypeError);
    expect(() => assign(prompt.settings, 'model', 'other')).toThrow(TypeError);
    expect(prompt.user).toBe('hi');
    expect(prompt.data).toEqual({ a: 1 });
    expect(prompt.settings).toEqual({ model: 'm' });
  });

  it('copies the data object it was given: changing the caller’s object later changes nothing', () => {
    const input: Record<string, unknown> = { a: 1 };
    const prompt = createPrompt({ user: 'hi', data: input, responseFormat: Answer });
    input['a'] = 2;
    input['b'] = 3;
    expect(prompt.data).toEqual({ a: 1 });
  });

  it('nested data is not shared with the caller either', () => {
    const customer = { name: 'Ada', tags: ['vip'] };
    const prompt = createPrompt({ user: 'hi', data: { customer }, responseFormat: Answer });
    customer.name = 'Mallory';
    customer.tags.push('changed');
    expect(prompt.data).toEqual({ customer: { name: 'Ada', tags: ['vip'] } });
  });
});

describe('withData()', () => {
  it('returns a new frozen prompt with the data replaced and everything else kept', () => {
    const original = createPrompt({
      user: 'Translate',
      name: 'translate',
      data: { text: 'hello', lang: 'fr' },
      responseFormat: Answer,
      system: 'You translate.',
      temperature: 0,
    });
    const next = original.withData({ text: 'goodbye' });
    expect(next).toBeInstanceOf(Prompt);
    expect(next).not.toBe(original);
    expect(next.id).not.toBe(original.id);
    expect(Object.isFrozen(next)).toBe(true);
    expect(next.data).toEqual({ text: 'goodbye' });
    expect(next.user).toBe('Translate');
    expect(next.name).toBe('translate');
    expect(next.responseFormat).toBe(Answer);
    expect(next.settings).toEqual({ system: 'You translate.', temperature: 0 });
    expect(original.data).toEqual({ text: 'hello', lang: 'fr' });
  });

  it('sends the new data and validates with the same schema', async () => {
    const model = new ScriptedModel([json({ answer: 'au revoir' })]);
    const agent = createAgent({ name: 'translator', ...(await agentModel(model)) });
    const prompt = createPrompt({ user: 'Translate', data: { text: 'hello' }, responseFormat: Answer });
    await expect(agent.prompt(prompt.withData({ text: 'goodbye' }))).resolves.toEqual({ answer: 'au revoir' });
    const sent = String(messagesOf(model.requests[0])[0]?.content);
    expect(sent).toContain('goodbye');
    expect(sent).not.toContain('hello');
    model.assertComplete();
  });

  it('refuses data that is not a plain object', () => {
    const prompt = createPrompt({ user: 'x', responseFormat: Answer });
    const notAnObject: unknown = ['a', 'b'];
    expect(() => prompt.withData(notAnObject as Record<string, unknown>)).toThrow(UsageError);
  });
});

describe('bad prompt input is a UsageError naming the field', () => {
  function usageError(config: unknown): UsageError {
    let thrown: unknown;
    try {
      createPrompt(config as Parameters<typeof createPrompt>[0]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    return thrown as UsageError;
  }

  it.each([
    ['an empty string', ''],
    ['only whitespace', '   \n'],
    ['missing', undefined],
    ['not a string', 42],
  ])('user %s', (_label, user) => {
    expect(usageError({ user, responseFormat: Answer }).message).toContain('user');
  });

  it.each([
    ['missing', undefined],
    ['a plain object, not a zod schema', { answer: 'string' }],
    ['a JSON schema', { type: 'object', properties: {} }],
  ])('responseFormat %s', (_label, responseFormat) => {
    expect(usageError({ user: 'hi', responseFormat }).message).toContain('responseFormat');
  });

  it.each([
    ['an array', [1, 2]],
    ['a string', 'text'],
    ['a number', 3],
    ['null', null],
  ])('data that is %s', (_label, data) => {
    expect(usageError({ user: 'hi', responseFormat: Answer, data }).message).toContain('data');
  });

  it('a config that is not an object', () => {
    expect(usageError(undefined).message).toMatch(/^Prompt: config must be an object/);
    expect(usageError('just a string').message).toMatch(/^Prompt: config must be an object/);
  });
});
