import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, UsageError, WorkflowTreeDebugger } from 'groundswell';
import {
  callingAgent,
  json,
  requestData,
  route,
  ScriptedModel,
  text,
  toolResults,
  toolUse,
  userText,
  type RecordedRequest,
} from 'groundswell/testing';

const Answer = z.object({ answer: z.string() });

/** Runs one agent prompt against a scripted model and returns what the model received. */
async function sentBy(
  prompt: { user: string; data?: Record<string, unknown> },
  system?: string,
): Promise<RecordedRequest> {
  const model = new ScriptedModel([json({ answer: 'ok' })]);
  const agent = createAgent({ name: 'probe', client: model.client(), ...(system === undefined ? {} : { system }) });
  await agent.prompt(createPrompt({ ...prompt, responseFormat: Answer }));
  const [request] = model.requests;
  if (request === undefined) throw new Error('no request was sent');
  return request;
}

describe('request helpers read what an agent sent', () => {
  it('requestData returns the prompt data, and {} when there is none', async () => {
    const request = await sentBy({ user: 'Weigh this.', data: { city: 'Oslo', days: [1, 2], note: '</data>' } });
    expect(requestData(request)).toEqual({ city: 'Oslo', days: [1, 2], note: '</data>' });
    expect(requestData(await sentBy({ user: 'No data here.' }))).toEqual({});
  });

  it('requestData parses with a schema, and a wrong guess fails loudly', async () => {
    const request = await sentBy({ user: 'Weigh this.', data: { city: 'Oslo' } });
    const data: { city: string } = requestData(request, z.object({ city: z.string() }));
    expect(data.city).toBe('Oslo');
    expect(() => requestData(request, z.object({ city: z.number() }))).toThrow();
  });

  it('userText is the prompt text without the data block', async () => {
    const request = await sentBy({ user: 'Weigh this.\nCarefully.', data: { city: 'Oslo' } });
    expect(userText(request)).toBe('Weigh this.\nCarefully.');
    expect(userText(await sentBy({ user: 'Plain.' }))).toBe('Plain.');
  });

  it('callingAgent is the agent system text, and undefined without one', async () => {
    expect(callingAgent(await sentBy({ user: 'x' }, 'You are the critic.'))).toBe('You are the critic.');
    expect(callingAgent(await sentBy({ user: 'x' }))).toBeUndefined();
  });

  it('callingAgent leaves out the goal ancestry, with or without system text', async () => {
    const model = new ScriptedModel([json({ answer: 'a' }), json({ answer: 'b' })]);
    const client = model.client();
    const named = createAgent({ name: 'named', system: 'You plan.', client });
    const bare = createAgent({ name: 'bare', client });
    const prompt = createPrompt({ user: 'go', responseFormat: Answer });
    const wf = createWorkflow({ name: 'goal', goal: 'Ship it' }, async (ctx) => {
      await ctx.step('named', () => named.prompt(prompt));
      await ctx.step('bare', () => bare.prompt(prompt));
    });
    await wf.run();
    const [first, second] = model.requests;
    expect(JSON.stringify(first?.body.system)).toContain('Ship it');
    expect(first && callingAgent(first)).toBe('You plan.');
    expect(JSON.stringify(second?.body.system)).toContain('Ship it');
    expect(second && callingAgent(second)).toBeUndefined();
  });

  it('toolResults lists what the agent sent back, and nothing on the first turn', async () => {
    const add = defineTool({
      name: 'add',
      description: 'Adds.',
      input: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => String(a + b),
    });
    const fail = defineTool({
      name: 'fail',
      description: 'Fails.',
      input: z.object({}),
      execute: () => {
        throw new Error('broken');
      },
    });
    const model = new ScriptedModel([
      toolUse([
        { name: 'add', input: { a: 2, b: 3 }, id: 'toolu_a' },
        { name: 'fail', input: {}, id: 'toolu_f' },
      ]),
      json({ answer: '5' }),
    ]);
    const agent = createAgent({ name: 'tools', client: model.client(), tools: [add, fail] });
    await agent.prompt(createPrompt({ user: 'Add.', responseFormat: Answer }));
    const [first, second] = model.requests;
    expect(first && toolResults(first)).toEqual([]);
    const results = second ? toolResults(second) : [];
    expect(results.map((r) => [r.toolUseId, r.content, r.isError])).toEqual([
      ['toolu_a', '5', false],
      ['toolu_f', expect.stringContaining('broken'), true],
    ]);
  });
});

describe('route()', () => {
  it('answers a concurrent fan-out by agent and prompt, whatever the arrival order', async () => {
    const model = new ScriptedModel(
      route({
        byAgent: {
          'You write headlines': (request) => json({ answer: `Headline: ${String(requestData(request).topic)}` }),
        },
        byPrompt: {
          Summarise: (request) => json({ answer: `Summary of ${String(requestData(request).topic)}` }),
          'Summarise briefly': (request) => json({ answer: `Brief: ${String(requestData(request).topic)}` }),
        },
        fallback: json({ answer: 'fallback' }),
      }),
    );
    const client = model.client();
    const writer = createAgent({ name: 'writer', system: 'You write headlines.', client });
    const reader = createAgent({ name: 'reader', system: 'You read.', client });
    const ask = (user: string, topic: string) => createPrompt({ user, data: { topic }, responseFormat: Answer });
    const topics = ['tides', 'moss', 'owls'];
    const wf = createWorkflow({ name: 'fan-out' }, (ctx) =>
      ctx.step('all', () =>
        Promise.all(
          topics.flatMap((topic) => [
            writer.prompt(ask('Summarise this.', topic)),
            reader.prompt(ask('Summarise this.', topic)),
            reader.prompt(ask('Summarise briefly.', topic)),
            reader.prompt(ask('Something else.', topic)),
          ]),
        ),
      ),
    );
    const answers = (await wf.run()).map((a) => a.answer);
    expect(answers).toEqual(
      topics.flatMap((t) => [`Headline: ${t}`, `Summary of ${t}`, `Brief: ${t}`, 'fallback']),
    );
    // Default usage is plain input/output tokens: the tree shows no cache tokens nobody scripted.
    const tree = new WorkflowTreeDebugger(wf).toTreeString();
    expect(tree).toContain('240 in / 120 out tok');
    expect(tree).not.toContain('cache');
    model.assertComplete();
  });

  it('a request no route matches is a script failure naming it', async () => {
    const model = new ScriptedModel(route({ byPrompt: { Known: text('hi') } }));
    const agent = createAgent({ name: 'lost', system: 'You wander.', client: model.client() });
    await expect(agent.prompt(createPrompt({ user: 'Unknown question', responseFormat: Answer }))).rejects.toThrow();
    expect(() => model.assertComplete()).toThrow(/no route for agent "You wander\.", prompt "Unknown question"/);
  });

  it('refuses an empty table and an empty key', () => {
    expect(() => route({})).toThrow(UsageError);
    expect(() => route({ byAgent: { '': text('x') } })).toThrow(UsageError);
  });
});
