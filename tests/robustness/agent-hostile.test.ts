import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AgentError,
  createAgent,
  createPrompt,
  defineTool,
  GroundswellError,
  HookError,
  WorkflowError,
  type AgentHooks,
  type HookContext,
  type WorkflowNode,
} from 'groundswell';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { Answer, failed, onlyChild, resultText, runInStep, toolResultsOf } from '../support/agent-helpers.js';
import { eventsOfType } from '../support/events.js';

/** Values user code may throw that are hard to describe. Each factory makes a fresh one. */
const THROWN: ReadonlyArray<[string, () => unknown]> = [
  ['a null-prototype object', () => Object.create(null)],
  [
    'an object whose toString throws',
    () => ({
      toString(): string {
        throw new Error('toString exploded');
      },
    }),
  ],
  [
    'an Error whose name, message and cause getters throw',
    () => {
      const error = new Error('hidden');
      for (const key of ['name', 'message', 'cause']) {
        Object.defineProperty(error, key, {
          get() {
            throw new TypeError(`${key} getter exploded`);
          },
        });
      }
      return error;
    },
  ],
  [
    'a revoked proxy',
    () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    },
  ],
  ['null', () => null],
  ['undefined', () => undefined],
  ['a number', () => 42],
];

/** Values a tool may return that JSON cannot carry as they are. */
const RETURNED: ReadonlyArray<[string, () => unknown]> = [
  [
    'a revoked proxy',
    () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    },
  ],
  [
    'an object whose toJSON throws',
    () => ({
      toJSON(): never {
        throw new Error('toJSON exploded');
      },
    }),
  ],
  ['a BigInt', () => 12345678901234567890n],
  [
    'a cycle',
    () => {
      const node: Record<string, unknown> = { name: 'loop' };
      node.self = node;
      return node;
    },
  ],
];

function allNodes(root: WorkflowNode): WorkflowNode[] {
  const out: WorkflowNode[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop() as WorkflowNode;
    out.push(node);
    stack.push(...node.children);
  }
  return out;
}

/** Every node ended: completed, failed or cancelled (never idle or running). */
function unfinished(root: WorkflowNode): string[] {
  return allNodes(root)
    .filter((node) => !['completed', 'failed', 'cancelled'].includes(node.status))
    .map((node) => `${node.kind}:${node.name}:${node.status}`);
}

function hostileTool(name: string, behave: () => unknown) {
  return defineTool({ name, description: 'Misbehaves.', input: z.object({}), execute: behave });
}

describe('a tool that throws a hostile value', () => {
  it.each(THROWN)('%s (thrown synchronously): the model gets a readable is_error result and the call completes', async (_label, make) => {
    const tool = hostileTool('bad', () => {
      throw make();
    });
    const model = new ScriptedModel([toolUse('bad', {}), json({ answer: 'recovered' })]);
    const agent = createAgent({ name: 'hostile', client: model.client({ maxRetries: 0 }), tools: [tool] });
    const run = await runInStep(() => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })));

    expect(run.outcome).toEqual({ ok: true, value: { answer: 'recovered' } });
    const [result] = toolResultsOf(model.requests[1]);
    expect(result?.is_error).toBe(true);
    const content = resultText(result);
    expect(content).toMatch(/^Tool "bad" failed: \S/);
    expect(content).not.toContain('undefined (reading');
    const toolNode = onlyChild(onlyChild(run.step, 'agentPrompt'), 'toolCall');
    expect(toolNode.status).toBe('failed');
    expect(eventsOfType(run.recording.events, 'toolInvocation')).toEqual([
      expect.objectContaining({ toolName: 'bad', isError: true, output: content }),
    ]);
    expect(unfinished(run.workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it.each(THROWN)('%s (as a rejection): the model gets an is_error result and the call completes', async (_label, make) => {
    const tool = hostileTool('bad', () => Promise.reject(make()));
    const model = new ScriptedModel([toolUse('bad', {}), json({ answer: 'recovered' })]);
    const agent = createAgent({ name: 'hostile', client: model.client({ maxRetries: 0 }), tools: [tool] });
    const value = await agent.prompt(createPrompt({ user: 'go', responseFormat: Answer }));

    expect(value).toEqual({ answer: 'recovered' });
    const [result] = toolResultsOf(model.requests[1]);
    expect(result?.is_error).toBe(true);
    expect(resultText(result)).toMatch(/^Tool "bad" failed: \S/);
    model.assertComplete();
  });

  it('the readable message says what was thrown when it has no message of its own', async () => {
    const messages: string[] = [];
    for (const [, make] of THROWN) {
      const tool = hostileTool('bad', () => {
        throw make();
      });
      const model = new ScriptedModel([toolUse('bad', {}), json({ answer: 'ok' })]);
      const agent = createAgent({ name: 'hostile', client: model.client({ maxRetries: 0 }), tools: [tool] });
      await agent.prompt(createPrompt({ user: 'go', responseFormat: Answer }));
      messages.push(resultText(toolResultsOf(model.requests[1])[0]));
    }
    // Plain values and describable objects are named; nothing ends in an empty reason.
    expect(messages).toEqual([
      expect.stringContaining('an object'),
      expect.stringContaining('an object'),
      expect.stringContaining('Error'),
      expect.stringContaining('unreadable'),
      'Tool "bad" failed: null',
      'Tool "bad" failed: undefined',
      'Tool "bad" failed: 42',
    ]);
  });
});

describe('a tool that returns a value JSON cannot carry', () => {
  it.each(RETURNED)('%s: the model gets a readable result or an error result, and the call completes', async (_label, make) => {
    const tool = hostileTool('odd', () => make());
    const model = new ScriptedModel([toolUse('odd', {}), json({ answer: 'fine' })]);
    const agent = createAgent({ name: 'hostile', client: model.client({ maxRetries: 0 }), tools: [tool] });
    const run = await runInStep(() => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })));

    expect(run.outcome).toEqual({ ok: true, value: { answer: 'fine' } });
    const [result] = toolResultsOf(model.requests[1]);
    const content = resultText(result);
    expect(content.length).toBeGreaterThan(0);
    if (result?.is_error === true) expect(content).toMatch(/^Tool "odd" (failed|returned)/);
    expect(unfinished(run.workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('a BigInt is sent as its decimal digits, not as an error', async () => {
    const tool = hostileTool('big', () => ({ id: 12345678901234567890n }));
    const model = new ScriptedModel([toolUse('big', {}), json({ answer: 'fine' })]);
    const agent = createAgent({ name: 'hostile', client: model.client({ maxRetries: 0 }), tools: [tool] });
    await agent.prompt(createPrompt({ user: 'go', responseFormat: Answer }));
    const [result] = toolResultsOf(model.requests[1]);
    expect(result?.is_error).toBe(false);
    expect(resultText(result)).toBe('{"id":"12345678901234567890"}');
  });

  it('a cycle is an error result that names the problem', async () => {
    const tool = hostileTool('loop', () => (RETURNED[3] as [string, () => unknown])[1]());
    const model = new ScriptedModel([toolUse('loop', {}), json({ answer: 'fine' })]);
    const agent = createAgent({ name: 'hostile', client: model.client({ maxRetries: 0 }), tools: [tool] });
    await agent.prompt(createPrompt({ user: 'go', responseFormat: Answer }));
    const [result] = toolResultsOf(model.requests[1]);
    expect(result?.is_error).toBe(true);
    expect(resultText(result)).toMatch(/^Tool "loop" returned a value that cannot be sent as JSON: .*circular/i);
  });
});

type HookName = keyof AgentHooks;
const HOOKS: readonly HookName[] = ['sessionStart', 'preToolUse', 'postToolUse', 'sessionEnd'];
const HOOK_CASES = HOOKS.flatMap((hook) => THROWN.map(([label, make]) => [hook, label, make] as const));

function throwingHooks(hook: HookName, make: () => unknown, ended: HookContext[]): AgentHooks {
  const hooks: AgentHooks = {
    [hook]: () => {
      throw make();
    },
  };
  if (hook !== 'sessionEnd') hooks.sessionEnd = (context) => void ended.push(context);
  return hooks;
}

describe('a hook that throws a hostile value', () => {
  it.each(HOOK_CASES)('%s throwing %s: a HookError fails the call, sessionEnd ran, every node ended', async (hook, _label, make) => {
    const ended: HookContext[] = [];
    const model = new ScriptedModel([toolUse('noop', {}), json({ answer: 'done' })]);
    const noop = hostileTool('noop', () => 'ok');
    const agent = createAgent({ name: 'hooked', client: model.client({ maxRetries: 0 }), tools: [noop], hooks: throwingHooks(hook, make, ended) });
    const run = await runInStep(() => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })));

    const error = failed(run.outcome);
    expect(error).toBeInstanceOf(WorkflowError);
    const cause = (error as WorkflowError).cause;
    expect(cause).toBeInstanceOf(HookError);
    expect(cause).toBeInstanceOf(AgentError);
    expect((cause as HookError).hook).toBe(hook);
    expect((cause as HookError).agentName).toBe('hooked');
    expect((cause as Error).message).toMatch(new RegExp(`^Hook ${hook} of agent "hooked" threw: \\S`));
    if (hook !== 'sessionEnd') {
      expect(ended).toHaveLength(1);
      expect(ended[0]?.isError).toBe(true);
      expect(ended[0]?.error).toBe(cause);
    }
    expect(onlyChild(run.step, 'agentPrompt').status).toBe('failed');
    expect(unfinished(run.workflow.node)).toEqual([]);
    const [end] = eventsOfType(run.recording.events, 'agentPromptEnd');
    expect(end).toMatchObject({ status: 'failed', error: { name: 'HookError' } });
  });

  it.each(THROWN)('outside a workflow, preToolUse throwing %s rejects agent.prompt() with a HookError', async (_label, make) => {
    const model = new ScriptedModel([toolUse('noop', {})]);
    const agent = createAgent({
      name: 'bare',
      client: model.client({ maxRetries: 0 }),
      tools: [hostileTool('noop', () => 'ok')],
      hooks: throwingHooks('preToolUse', make, []),
    });
    const error = await agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(GroundswellError);
    expect(error).toBeInstanceOf(HookError);
    expect(typeof (error as Error).message).toBe('string');
    model.assertComplete();
  });

  it('a preToolUse decision that cannot be read fails the call with a HookError', async () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const model = new ScriptedModel([toolUse('noop', {})]);
    const agent = createAgent({
      name: 'bare',
      client: model.client({ maxRetries: 0 }),
      tools: [hostileTool('noop', () => 'ok')],
      hooks: { preToolUse: () => proxy as never },
    });
    const run = await runInStep(() => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })));
    expect((failed(run.outcome) as WorkflowError).cause).toBeInstanceOf(HookError);
    expect(unfinished(run.workflow.node)).toEqual([]);
  });
});
