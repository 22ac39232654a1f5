import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  defineTool,
  HookError,
  StructuredOutputError,
  WorkflowError,
  type AgentHooks,
  type HookContext,
} from 'groundswell';
import { json, malformedJson, ScriptedModel, toolUse } from 'groundswell/testing';
import { adder, Answer, failed, onlyChild, resultText, runInStep, runningNodes, toolResultsOf } from '../support/agent-helpers.js';
import { flush } from '../support/core-helpers.js';
import { caught } from '../support/decorators-helpers.js';
import { deferred } from '../support/deferred.js';
import { eventsOfType } from '../support/events.js';
import { agentModel, sentErrorFlag } from '../support/model-path.js';

type HookName = keyof AgentHooks;

/** Hooks that record every call as `[hook, context]`. */
function recordingHooks(): { hooks: Required<AgentHooks>; calls: Array<[HookName, HookContext]>; labels(): string[] } {
  const calls: Array<[HookName, HookContext]> = [];
  const hooks: Required<AgentHooks> = {
    sessionStart: (context) => void calls.push(['sessionStart', context]),
    preToolUse: (context) => void calls.push(['preToolUse', context]),
    postToolUse: (context) => void calls.push(['postToolUse', context]),
    sessionEnd: (context) => void calls.push(['sessionEnd', context]),
  };
  const labels = (): string[] => calls.map(([hook, context]) => (context.toolName ? `${hook}:${context.toolName}` : hook));
  return { hooks, calls, labels };
}

function contextOf(calls: Array<[HookName, HookContext]>, index: number): HookContext {
  const entry = calls[index];
  if (entry === undefined) throw new Error(`expected hook call #${index}`);
  return entry[1];
}

const echo = defineTool({ name: 'echo', description: 'Echoes.', input: z.object({ text: z.string() }), execute: ({ text }) => text });

describe('hook order', () => {
  it('sessionStart, then preToolUse/postToolUse per tool call in order, then sessionEnd', async () => {
    const { hooks, labels } = recordingHooks();
    const model = new ScriptedModel([
      toolUse([
        { name: 'add', input: { a: 1, b: 2 } },
        { name: 'echo', input: { text: 'hi' } },
      ]),
      toolUse('add', { a: 3, b: 4 }),
      json({ answer: 'done' }),
    ]);
    const agent = createAgent({ name: 'ordered', ...(await agentModel(model)), tools: [adder().tool, echo], hooks });
    await agent.prompt(createPrompt({ user: 'go', responseFormat: Answer }));
    expect(labels()).toEqual([
      'sessionStart',
      'preToolUse:add',
      'postToolUse:add',
      'preToolUse:echo',
      'postToolUse:echo',
      'preToolUse:add',
      'postToolUse:add',
      'sessionEnd',
    ]);
    model.assertComplete();
  });

  it('a call without tools gets just sessionStart and sessionEnd', async () => {
    const { hooks, labels } = recordingHooks();
    const model = new ScriptedModel([json({ answer: 'plain' })]);
    const agent = createAgent({ name: 'plain', ...(await agentModel(model)), hooks });
    await agent.prompt(createPrompt({ user: 'go', responseFormat: Answer }));
    expect(labels()).toEqual(['sessionStart', 'sessionEnd']);
    model.assertComplete();
  });

  it('awaits async hooks: the tool does not run before preToolUse settles', async () => {
    const order: string[] = [];
    const gate = deferred();
    const preStarted = deferred();
    const tool = defineTool({
      name: 'work',
      description: 'Works.',
      input: z.object({}),
      execute: () => {
        order.push('execute');
        return 'worked';
      },
    });
    const hooks: AgentHooks = {
      preToolUse: async () => {
        order.push('pre:start');
        preStarted.resolve();
        await gate.promise;
        order.push('pre:end');
      },
      postToolUse: async () => {
        await Promise.resolve();
        order.push('post');
      },
      sessionEnd: async () => {
        await Promise.resolve();
        order.push('end');
      },
    };
    const model = new ScriptedModel([toolUse('work', {}), json({ answer: 'ok' })]);
    const agent = createAgent({ name: 'async', ...(await agentModel(model)), tools: [tool], hooks });
    const pending = agent.prompt(createPrompt({ user: 'go', responseFormat: Answer }));
    await preStarted.promise;
    await flush();
    expect(order).toEqual(['pre:start']);
    gate.resolve();
    await pending;
    expect(order).toEqual(['pre:start', 'pre:end', 'execute', 'post', 'end']);
    model.assertComplete();
  });
});

describe('hook context', () => {
  it('has one shape: agentName, promptId, model, nodeId, workflowId, turn; tool fields only for tool hooks', async () => {
    const { hooks, calls } = recordingHooks();
    const model = new ScriptedModel([toolUse('add', { a: 2, b: 3 }, { id: 'toolu_ctx' }), json({ answer: '5' })]);
    const agent = createAgent({ name: 'ctx', ...(await agentModel(model, { model: 'claude-test-ctx' })), tools: [adder().tool], hooks });
    const prompt = createPrompt({ user: 'add', responseFormat: Answer });
    const run = await runInStep(() => agent.prompt(prompt));
    expect(run.outcome.ok).toBe(true);
    const promptNode = onlyChild(run.step, 'agentPrompt');
    const base = { agentName: 'ctx', promptId: prompt.id, model: 'claude-test-ctx', nodeId: promptNode.id, workflowId: run.workflow.id };

    expect(calls.map(([hook]) => hook)).toEqual(['sessionStart', 'preToolUse', 'postToolUse', 'sessionEnd']);
    expect(contextOf(calls, 0)).toEqual({ ...base, turn: 0 });
    expect(contextOf(calls, 1)).toEqual({ ...base, turn: 1, toolName: 'add', toolUseId: 'toolu_ctx', toolInput: { a: 2, b: 3 } });
    expect(contextOf(calls, 2)).toEqual({
      ...base,
      turn: 1,
      toolName: 'add',
      toolUseId: 'toolu_ctx',
      toolInput: { a: 2, b: 3 },
      result: '5',
      isError: false,
    });
    expect(contextOf(calls, 3)).toEqual({ ...base, turn: 2, result: { answer: '5' }, isError: false });
    for (const index of [0, 3]) {
      for (const field of ['toolName', 'toolUseId', 'toolInput']) expect(contextOf(calls, index)).not.toHaveProperty(field);
    }
    model.assertComplete();
  });

  it('outside a workflow nodeId and workflowId are undefined', async () => {
    const { hooks, calls } = recordingHooks();
    const model = new ScriptedModel([json({ answer: 'x' })]);
    const agent = createAgent({ name: 'free', ...(await agentModel(model)), hooks });
    await agent.prompt(createPrompt({ user: 'go', responseFormat: Answer }));
    for (const [, context] of calls) {
      expect(context.nodeId).toBeUndefined();
      expect(context.workflowId).toBeUndefined();
      expect(context.agentName).toBe('free');
    }
    model.assertComplete();
  });

  it('postToolUse sees a failed tool as isError with the message the model got', async () => {
    const { hooks, calls } = recordingHooks();
    const boom = defineTool({
      name: 'boom',
      description: 'Throws.',
      input: z.object({}),
      execute: () => {
        throw new Error('kaboom');
      },
    });
    const model = new ScriptedModel([toolUse('boom', {}), json({ answer: 'recovered' })]);
    const agent = createAgent({ name: 'a', ...(await agentModel(model)), tools: [boom], hooks });
    await agent.prompt(createPrompt({ user: 'go', responseFormat: Answer }));
    const post = contextOf(calls, 2);
    expect(post.isError).toBe(true);
    expect(post.result).toBe(resultText(toolResultsOf(model.requests[1])[0]));
    expect(String(post.result)).toContain('kaboom');
    model.assertComplete();
  });
});

describe('sessionEnd on failure', () => {
  it('runs with the error (and isError) when the call fails, and the call still fails with that error', async () => {
    const { hooks, calls, labels } = recordingHooks();
    const model = new ScriptedModel([malformedJson()]);
    const agent = createAgent({ name: 'fails', ...(await agentModel(model)), hooks });
    const error = await caught(() => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })));
    expect(error).toBeInstanceOf(StructuredOutputError);
    expect(labels()).toEqual(['sessionStart', 'sessionEnd']);
    const end = contextOf(calls, 1);
    expect(end.error).toBe(error);
    expect(end.isError).toBe(true);
    expect(end).not.toHaveProperty('result');
    expect(end.agentName).toBe('fails');
    model.assertComplete();
  });

  it('a sessionEnd that throws after a failure does not hide the call’s own error', async () => {
    const model = new ScriptedModel([malformedJson()]);
    const agent = createAgent({
      name: 'fails',
      ...(await agentModel(model)),
      hooks: {
        sessionEnd: () => {
          throw new Error('hook broke');
        },
      },
    });
    const error = await caught(() => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })));
    expect(error).toBeInstanceOf(StructuredOutputError);
    model.assertComplete();
  });
});

describe('preToolUse may refuse a call', () => {
  it('{ block: true, reason }: the tool does not run, the model gets an is_error result with the reason', async () => {
    const { tool, calls: executed } = adder();
    const reasons: string[] = [];
    const model = new ScriptedModel([toolUse('add', { a: 1, b: 1 }, { id: 'toolu_blocked' }), json({ answer: 'ok, no adding' })]);
    const agent = createAgent({
      name: 'guarded',
      ...(await agentModel(model)),
      tools: [tool],
      hooks: {
        preToolUse: (context) => (context.toolName === 'add' ? { block: true, reason: 'adding is disabled today' } : undefined),
        postToolUse: (context) => void reasons.push(String(context.result)),
      },
    });
    const run = await runInStep(() => agent.execute(createPrompt({ user: 'add', responseFormat: Answer })));
    if (!run.outcome.ok) throw run.outcome.error;
    expect(run.outcome.value.value).toEqual({ answer: 'ok, no adding' });
    expect(executed).toEqual([]);

    const [sent] = toolResultsOf(model.requests[1]);
    expect(sent).toMatchObject({ tool_use_id: 'toolu_blocked' });
    expect(sent?.is_error).toBe(sentErrorFlag(true));
    expect(resultText(sent)).toContain('adding is disabled today');

    const [invocation] = eventsOfType(run.recording.events, 'toolInvocation');
    expect(invocation).toMatchObject({ toolName: 'add', toolUseId: 'toolu_blocked', isError: true, blockedReason: 'adding is disabled today' });
    expect(run.outcome.value.toolCalls).toEqual([expect.objectContaining({ name: 'add', isError: true, blockedReason: 'adding is disabled today' })]);
    expect(reasons).toHaveLength(1);
    model.assertComplete();
  });

  it('returning nothing lets the call through (no blockedReason)', async () => {
    const { tool, calls: executed } = adder();
    const model = new ScriptedModel([toolUse('add', { a: 1, b: 1 }), json({ answer: '2' })]);
    const agent = createAgent({ name: 'open', ...(await agentModel(model)), tools: [tool], hooks: { preToolUse: () => undefined } });
    const run = await runInStep(() => agent.prompt(createPrompt({ user: 'add', responseFormat: Answer })));
    expect(run.outcome.ok).toBe(true);
    expect(executed).toEqual([{ a: 1, b: 1 }]);
    const [invocation] = eventsOfType(run.recording.events, 'toolInvocation');
    expect(invocation).not.toHaveProperty('blockedReason');
    model.assertComplete();
  });
});

describe('a hook that throws', () => {
  it('preToolUse throwing fails the call with that error, the tool never runs, and sessionEnd still runs', async () => {
    const { tool, calls: executed } = adder();
    const hookError = new Error('policy service down');
    const ended: HookContext[] = [];
    const model = new ScriptedModel([toolUse('add', { a: 1, b: 1 })]);
    const agent = createAgent({
      name: 'hooked',
      ...(await agentModel(model)),
      tools: [tool],
      hooks: {
        preToolUse: () => {
          throw hookError;
        },
        sessionEnd: (context) => void ended.push(context),
      },
    });
    const run = await runInStep(() => agent.prompt(createPrompt({ user: 'add', responseFormat: Answer })));
    const error = failed(run.outcome);
    expect(error).toBeInstanceOf(WorkflowError);
    const cause = (error as WorkflowError).cause;
    expect(cause).toBeInstanceOf(HookError);
    expect(cause).toMatchObject({ hook: 'preToolUse', agentName: 'hooked', cause: hookError });
    expect((cause as Error).message).toBe('Hook preToolUse of agent "hooked" threw: policy service down');
    expect(executed).toEqual([]);
    expect(ended).toHaveLength(1);
    expect(ended[0]?.error).toBe(cause);
    expect(ended[0]?.isError).toBe(true);
    expect(onlyChild(run.step, 'agentPrompt').status).toBe('failed');
    expect(model.requests).toHaveLength(1);
    model.assertComplete();
  });

  it('leaves no node running when a tool hook throws', async () => {
    for (const failing of ['preToolUse', 'postToolUse'] as const) {
      const model = new ScriptedModel([toolUse('add', { a: 1, b: 1 })]);
      const hooks: AgentHooks = {
        [failing]: () => {
          throw new Error(`${failing} broke`);
        },
      };
      const agent = createAgent({ name: 'hooked', ...(await agentModel(model)), tools: [adder().tool], hooks });
      const run = await runInStep(() => agent.prompt(createPrompt({ user: 'add', responseFormat: Answer })));
      expect(run.outcome.ok).toBe(false);
      expect(runningNodes(run.workflow.node)).toEqual([]);
      model.assertComplete();
    }
  });

  it('postToolUse throwing fails the call (after the tool ran) and sessionEnd still runs', async () => {
    const { tool, calls: executed } = adder();
    const ended: HookContext[] = [];
    const model = new ScriptedModel([toolUse('add', { a: 1, b: 1 })]);
    const agent = createAgent({
      name: 'hooked',
      ...(await agentModel(model)),
      tools: [tool],
      hooks: {
        postToolUse: () => {
          throw new Error('audit log unavailable');
        },
        sessionEnd: (context) => void ended.push(context),
      },
    });
    const error = await caught(() => agent.prompt(createPrompt({ user: 'add', responseFormat: Answer })));
    expect(error).toBeInstanceOf(HookError);
    expect((error as HookError).hook).toBe('postToolUse');
    expect(((error as HookError).cause as Error).message).toBe('audit log unavailable');
    expect(executed).toEqual([{ a: 1, b: 1 }]);
    expect(ended.map((c) => c.error)).toEqual([error]);
    model.assertComplete();
  });

  it('sessionStart throwing fails the call before anything is sent', async () => {
    const model = new ScriptedModel([]);
    const agent = createAgent({
      name: 'hooked',
      ...(await agentModel(model)),
      hooks: {
        sessionStart: () => {
          throw new Error('not allowed to start');
        },
      },
    });
    const error = await caught(() => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })));
    expect(error).toBeInstanceOf(HookError);
    expect((error as Error).message).toBe('Hook sessionStart of agent "hooked" threw: not allowed to start');
    expect(model.requests).toHaveLength(0);
    model.assertComplete();
  });

  it('sessionEnd still runs when sessionStart throws', async () => {
    const ended: HookContext[] = [];
    const model = new ScriptedModel([]);
    const agent = createAgent({
      name: 'hooked',
      ...(await agentModel(model)),
      hooks: {
        sessionStart: () => {
          throw new Error('not allowed to start');
        },
        sessionEnd: (context) => void ended.push(context),
      },
    });
    await caught(() => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })));
    expect(ended).toHaveLength(1);
    expect(ended[0]?.isError).toBe(true);
    model.assertComplete();
  });

  it('sessionEnd throwing after a success fails the call with the hook’s error', async () => {
    const model = new ScriptedModel([json({ answer: 'fine' })]);
    const agent = createAgent({
      name: 'hooked',
      ...(await agentModel(model)),
      hooks: {
        sessionEnd: () => {
          throw new Error('could not flush');
        },
      },
    });
    const run = await runInStep(() => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })));
    const error = failed(run.outcome);
    const cause = (error as WorkflowError).cause;
    expect(cause).toBeInstanceOf(HookError);
    expect((cause as HookError).hook).toBe('sessionEnd');
    expect(((cause as HookError).cause as Error).message).toBe('could not flush');
    expect(onlyChild(run.step, 'agentPrompt').status).toBe('failed');
    model.assertComplete();
  });
});
