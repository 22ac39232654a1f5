import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  defineTool,
  MaxTurnsExceededError,
  UsageError,
  WorkflowCancelledError,
  type ToolContext,
} from 'groundswell';
import { json, ScriptedModel, toolUse, type RecordedRequest } from 'groundswell/testing';
import {
  adder,
  Answer,
  envSnapshot,
  messagesOf,
  resultText,
  runningNodes,
  toolResultsOf,
  toolUsesSentBack,
} from '../support/agent-helpers.js';
import { flush } from '../support/core-helpers.js';
import { caught } from '../support/decorators-helpers.js';
import { deferred } from '../support/deferred.js';
import { agentModel, sentErrorFlag, sentToolResult } from '../support/model-path.js';

const SumAnswer = z.object({ sum: z.number() });

describe('the tool loop', () => {
  it('runs tools until the model stops calling them, and resolves to the final answer', async () => {
    const { tool, calls } = adder();
    const model = new ScriptedModel([toolUse('add', { a: 2, b: 3 }), toolUse('add', { a: 5, b: 1 }), json({ sum: 6 })]);
    const agent = createAgent({ name: 'calc', ...(await agentModel(model)), tools: [tool] });
    const result = await agent.execute(createPrompt({ user: '(2+3)+1?', responseFormat: SumAnswer }));
    expect(result.value).toEqual({ sum: 6 });
    expect(result.turns).toBe(3);
    expect(calls).toEqual([
      { a: 2, b: 3 },
      { a: 5, b: 1 },
    ]);
    expect(model.requests).toHaveLength(3);
    model.assertComplete();
  });

  it('sends each result back as a tool_result for the tool_use it answers, after the whole conversation so far', async () => {
    const { tool } = adder();
    const model = new ScriptedModel([
      toolUse('add', { a: 2, b: 3 }, { id: 'toolu_first', text: 'Let me add.' }),
      toolUse('add', { a: 5, b: 1 }, { id: 'toolu_second' }),
      json({ sum: 6 }),
    ]);
    const agent = createAgent({ name: 'calc', ...(await agentModel(model)), tools: [tool] });
    await agent.prompt(createPrompt({ user: '(2+3)+1?', responseFormat: SumAnswer }));

    expect(messagesOf(model.requests[0])).toEqual([{ role: 'user', content: '(2+3)+1?' }]);
    const second = messagesOf(model.requests[1]);
    expect(second.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(toolUsesSentBack(model.requests[1])).toEqual([
      expect.objectContaining({ type: 'tool_use', id: 'toolu_first', name: 'add', input: { a: 2, b: 3 } }),
    ]);
    // The assistant turn goes back as it came, text included.
    expect(JSON.stringify(second[1]?.content)).toContain('Let me add.');
    expect(toolResultsOf(model.requests[1])).toEqual([sentToolResult('toolu_first', '5')]);

    const third = messagesOf(model.requests[2]);
    expect(third.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(third.slice(0, 3)).toEqual(second);
    expect(toolResultsOf(model.requests[2])).toEqual([sentToolResult('toolu_second', '6')]);
    model.assertComplete();
  });

  it('answers several tool calls of one turn in one user message, in order, one after another', async () => {
    const order: string[] = [];
    const gate = deferred();
    const slowStarted = deferred();
    const slow = defineTool({
      name: 'slow',
      description: 'Waits for the gate.',
      input: z.object({}),
      execute: async () => {
        order.push('slow:start');
        slowStarted.resolve();
        await gate.promise;
        order.push('slow:end');
        return 'slow done';
      },
    });
    const fast = defineTool({
      name: 'fast',
      description: 'Returns at once.',
      input: z.object({}),
      execute: () => {
        order.push('fast');
        return { ok: true, items: [1, 2] };
      },
    });
    const model = new ScriptedModel([
      toolUse([
        { name: 'slow', input: {}, id: 'toolu_s' },
        { name: 'fast', input: {}, id: 'toolu_f' },
      ]),
      json({ answer: 'both done' }),
    ]);
    const agent = createAgent({ name: 'multi', ...(await agentModel(model)), tools: [slow, fast] });
    const pending = agent.prompt(createPrompt({ user: 'do both', responseFormat: Answer }));
    await slowStarted.promise;
    await flush();
    // The second tool waits for the first to finish.
    expect(order).toEqual(['slow:start']);
    gate.resolve();
    await expect(pending).resolves.toEqual({ answer: 'both done' });
    expect(order).toEqual(['slow:start', 'slow:end', 'fast']);
    const results = toolResultsOf(model.requests[1]);
    expect(results.map((r) => r.tool_use_id)).toEqual(['toolu_s', 'toolu_f']);
    expect(resultText(results[0])).toBe('slow done');
    // Anything that is not a string goes back as JSON.
    expect(JSON.parse(resultText(results[1]))).toEqual({ ok: true, items: [1, 2] });
    model.assertComplete();
  });

  it('shows the model each tool as name, description and the JSON schema of its input', async () => {
    const search = defineTool({
      name: 'search',
      description: 'Searches the docs.',
      input: z.object({ query: z.string(), limit: z.number().int().optional() }),
      execute: () => [],
    });
    const model = new ScriptedModel([json({ answer: 'none' })]);
    const agent = createAgent({ name: 'docs', ...(await agentModel(model)), tools: [search] });
    await agent.prompt(createPrompt({ user: 'find x', responseFormat: Answer }));
    const [definition] = model.requests[0]?.body.tools ?? [];
    expect(definition).toMatchObject({
      name: 'search',
      description: 'Searches the docs.',
      input_schema: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } }, required: ['query'] },
    });
    expect(definition).not.toHaveProperty('input_schema.$schema');
    model.assertComplete();
  });
});

describe('tool failures go back to the model as is_error results', () => {
  it('a tool that throws: is_error result with the message, and the model’s next answer is used', async () => {
    const flaky = defineTool({
      name: 'fetch_page',
      description: 'Fetches a page.',
      input: z.object({ url: z.string() }),
      execute: () => {
        throw new Error('ECONNRESET while fetching');
      },
    });
    const model = new ScriptedModel([toolUse('fetch_page', { url: 'https://example.test' }), json({ answer: 'could not fetch' })]);
    const agent = createAgent({ name: 'web', ...(await agentModel(model)), tools: [flaky] });
    const result = await agent.execute(createPrompt({ user: 'read it', responseFormat: Answer }));
    expect(result.value).toEqual({ answer: 'could not fetch' });
    const [sent] = toolResultsOf(model.requests[1]);
    expect(sent?.is_error).toBe(sentErrorFlag(true));
    expect(resultText(sent)).toContain('ECONNRESET while fetching');
    expect(resultText(sent)).toContain('fetch_page');
    expect(result.toolCalls).toEqual([expect.objectContaining({ name: 'fetch_page', isError: true })]);
    model.assertComplete();
  });

  it('an async tool that rejects is handled the same way', async () => {
    const rejecting = defineTool({
      name: 'later',
      description: 'Rejects.',
      input: z.object({}),
      execute: async () => Promise.reject(new Error('quota exceeded')),
    });
    const model = new ScriptedModel([toolUse('later', {}), json({ answer: 'ok' })]);
    const agent = createAgent({ name: 'a', ...(await agentModel(model)), tools: [rejecting] });
    await expect(agent.prompt(createPrompt({ user: 'go', responseFormat: Answer }))).resolves.toEqual({ answer: 'ok' });
    const [sent] = toolResultsOf(model.requests[1]);
    expect(sent?.is_error).toBe(sentErrorFlag(true));
    expect(resultText(sent)).toContain('quota exceeded');
    model.assertComplete();
  });

  it('input that fails the tool’s zod schema: is_error naming every bad path, and execute is not called', async () => {
    let executed = 0;
    const createUser = defineTool({
      name: 'create_user',
      description: 'Creates a user.',
      input: z.object({ age: z.number(), profile: z.object({ email: z.string() }), roles: z.array(z.string()) }),
      execute: () => {
        executed += 1;
        return 'created';
      },
    });
    const model = new ScriptedModel([
      toolUse('create_user', { age: 'old', profile: { email: 7 }, roles: ['admin', 3] }),
      json({ answer: 'fixed it' }),
    ]);
    const agent = createAgent({ name: 'admin', ...(await agentModel(model)), tools: [createUser] });
    await expect(agent.prompt(createPrompt({ user: 'add Ada', responseFormat: Answer }))).resolves.toEqual({ answer: 'fixed it' });
    expect(executed).toBe(0);
    const [sent] = toolResultsOf(model.requests[1]);
    expect(sent?.is_error).toBe(sentErrorFlag(true));
    const message = resultText(sent);
    expect(message).toContain('create_user');
    for (const path of ['age', 'profile.email', 'roles.1']) expect(message).toContain(path);
    model.assertComplete();
  });

  it('an unknown tool name: is_error listing the tools that exist', async () => {
    const { tool } = adder();
    const echo = defineTool({ name: 'echo', description: 'Echoes.', input: z.object({ text: z.string() }), execute: ({ text: t }) => t });
    const model = new ScriptedModel([toolUse('multiply', { a: 2, b: 3 }), json({ answer: 'used add instead' })]);
    const agent = createAgent({ name: 'calc', ...(await agentModel(model)), tools: [tool, echo] });
    await expect(agent.prompt(createPrompt({ user: '2*3', responseFormat: Answer }))).resolves.toEqual({ answer: 'used add instead' });
    const [sent] = toolResultsOf(model.requests[1]);
    expect(sent?.is_error).toBe(sentErrorFlag(true));
    const message = resultText(sent);
    expect(message).toContain('multiply');
    expect(message).toContain('add');
    expect(message).toContain('echo');
    model.assertComplete();
  });
});

describe('maxTurns', () => {
  it('stops a model that keeps calling tools with MaxTurnsExceededError, after exactly maxTurns requests', async () => {
    const { tool, calls } = adder();
    const model = new ScriptedModel([toolUse('add', { a: 1, b: 1 }), toolUse('add', { a: 2, b: 2 }), toolUse('add', { a: 3, b: 3 })]);
    const agent = createAgent({ name: 'loopy', ...(await agentModel(model)), tools: [tool], maxTurns: 3 });
    const error = await caught(() => agent.prompt(createPrompt({ user: 'count', responseFormat: Answer })));
    expect(error).toBeInstanceOf(MaxTurnsExceededError);
    expect(error).toMatchObject({ maxTurns: 3, agentName: 'loopy' });
    expect((error as Error).message).toContain('3');
    expect(model.requests).toHaveLength(3);
    expect(calls).toHaveLength(3);
    model.assertComplete();
  });

  it('an answer on the last allowed turn is fine', async () => {
    const { tool } = adder();
    const model = new ScriptedModel([toolUse('add', { a: 1, b: 1 }), json({ sum: 2 })]);
    const agent = createAgent({ name: 'tight', ...(await agentModel(model)), tools: [tool], maxTurns: 2 });
    await expect(agent.prompt(createPrompt({ user: '1+1', responseFormat: SumAnswer }))).resolves.toEqual({ sum: 2 });
    model.assertComplete();
  });
});

describe('what a tool receives', () => {
  it('its parsed input, the call’s env, the tool_use id and the agent name', async () => {
    const seen: Array<{ input: unknown; context: ToolContext }> = [];
    const probe = defineTool({
      name: 'probe',
      description: 'Records its context.',
      input: z.object({ n: z.coerce.number() }),
      execute: (input, context) => {
        seen.push({ input, context });
        return 'ok';
      },
    });
    const model = new ScriptedModel([toolUse('probe', { n: '42' }, { id: 'toolu_probe_7' }), json({ answer: 'done' })]);
    const agent = createAgent({ name: 'prober', ...(await agentModel(model)), tools: [probe], env: { API_TOKEN: 'agent-token' } });
    await agent.prompt(createPrompt({ user: 'probe', responseFormat: Answer }));
    expect(seen).toHaveLength(1);
    expect(seen[0]?.input).toEqual({ n: 42 });
    expect(seen[0]?.context).toMatchObject({ env: { API_TOKEN: 'agent-token' }, toolUseId: 'toolu_probe_7', agentName: 'prober' });
    model.assertComplete();
  });

  it('inside a workflow, a signal that aborts when the workflow is cancelled', async () => {
    let signal: AbortSignal | undefined;
    const started = deferred();
    const wait = defineTool({
      name: 'wait',
      description: 'Waits until aborted.',
      input: z.object({}),
      execute: (_input, context) =>
        new Promise((_resolve, reject) => {
          signal = context.signal;
          started.resolve();
          context.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        }),
    });
    const model = new ScriptedModel([toolUse('wait', {})]);
    const agent = createAgent({ name: 'waiter', ...(await agentModel(model)), tools: [wait] });
    const workflow = createWorkflow({ name: 'cancel-me' }, (ctx) =>
      ctx.step('ask', () => agent.prompt(createPrompt({ user: 'wait', responseFormat: Answer }))),
    );
    const run = workflow.run();
    await started.promise;
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal?.aborted).toBe(false);
    workflow.cancel('stop');
    await expect(run).rejects.toBeInstanceOf(WorkflowCancelledError);
    expect(signal?.aborted).toBe(true);
    expect(runningNodes(workflow.node)).toEqual([]);
    expect(model.requests).toHaveLength(1);
    model.assertComplete();
  });
});

describe('env isolation between concurrent calls', () => {
  /** Answers: first turn calls `whoami`; after the tool result, returns what the tool said. */
  function whoamiModel(): ScriptedModel {
    return new ScriptedModel((request: RecordedRequest) => {
      const [result] = toolResultsOf(request);
      if (result === undefined) return toolUse('whoami', {});
      return json({ answer: resultText(result) });
    });
  }

  it('two concurrent calls on one agent each see only their own env, and process.env is untouched', async () => {
    const before = envSnapshot();
    const bothInside = { count: 0, ready: deferred() };
    const insideProcessEnv: Array<string | undefined> = [];
    const whoami = defineTool({
      name: 'whoami',
      description: 'Reports the tenant from env.',
      input: z.object({}),
      execute: async (_input, { env }) => {
        // Both calls are inside their tool at the same time before either answers.
        bothInside.count += 1;
        if (bothInside.count === 2) bothInside.ready.resolve();
        await bothInside.ready.promise;
        insideProcessEnv.push(process.env['TENANT'], process.env['TENANT_SECRET']);
        return JSON.stringify(env);
      },
    });
    const model = whoamiModel();
    const agent = createAgent({ name: 'tenant', ...(await agentModel(model)), tools: [whoami], env: { SHARED: 'agent-level' } });
    const prompt = createPrompt({ user: 'who am I?', responseFormat: Answer });
    const [a, b] = await Promise.all([
      agent.prompt(prompt, { env: { TENANT: 'alpha', TENANT_SECRET: 'a-secret' } }),
      agent.prompt(prompt, { env: { TENANT: 'beta' } }),
    ]);
    // Override env replaces the agent's (no merge), and each call sees exactly its own.
    expect(JSON.parse(a.answer)).toEqual({ TENANT: 'alpha', TENANT_SECRET: 'a-secret' });
    expect(JSON.parse(b.answer)).toEqual({ TENANT: 'beta' });
    expect(insideProcessEnv.every((value) => value === undefined)).toBe(true);
    expect(envSnapshot()).toEqual(before);
    expect(model.requests).toHaveLength(4);
    model.assertComplete();
  });

  it('a call without an env override gets the agent’s env', async () => {
    const before = envSnapshot();
    const whoami = defineTool({ name: 'whoami', description: 'Env.', input: z.object({}), execute: (_i, { env }) => JSON.stringify(env) });
    const model = whoamiModel();
    const agent = createAgent({ name: 'tenant', ...(await agentModel(model)), tools: [whoami], env: { SHARED: 'agent-level' } });
    const value = await agent.prompt(createPrompt({ user: 'who?', responseFormat: Answer }));
    expect(JSON.parse(value.answer)).toEqual({ SHARED: 'agent-level' });
    expect(envSnapshot()).toEqual(before);
    model.assertComplete();
  });
});

describe('tool definitions', () => {
  it('defineTool refuses names the API would reject, and missing parts', () => {
    const input = z.object({});
    expect(() => defineTool({ name: 'has space', description: 'x', input, execute: () => 1 })).toThrow(UsageError);
    expect(() => defineTool({ name: 'x'.repeat(65), description: 'x', input, execute: () => 1 })).toThrow(UsageError);
    const noSchema: unknown = { name: 'ok', description: 'x', input: { type: 'object' }, execute: () => 1 };
    expect(() => defineTool(noSchema as Parameters<typeof defineTool>[0])).toThrow(/zod/);
  });

  it('two tools with one name are a UsageError, not silent shadowing, and nothing is sent', async () => {
    const first = adder().tool;
    const second = adder().tool;
    const model = new ScriptedModel([]);
    const agent = createAgent({ name: 'dup', ...(await agentModel(model)), tools: [first, second] });
    const error = await caught(() => agent.prompt(createPrompt({ user: 'x', responseFormat: Answer })));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain('add');
    expect(model.requests).toHaveLength(0);
    model.assertComplete();
  });
});
