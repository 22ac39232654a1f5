import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  StructuredOutputError,
  WorkflowError,
  WorkflowTreeDebugger,
  type McpEvent,
  type WorkflowEvent,
  type WorkflowNode,
} from 'groundswell';
import { McpConnectionError, type McpServerConfig } from 'groundswell/mcp';
import { json, malformedJson, ScriptedModel, toolUse, type RecordedRequest, type ScriptStep } from 'groundswell/testing';
import { echoServerConfig, isAlive } from '../mcp/fixtures/echo-server-config.js';
import { createInProcessServer } from '../mcp/fixtures/in-process-server.js';
import { eventsOfType } from '../support/events.js';
import {
  errorOf,
  eventsOn,
  nodesOfKind,
  onlyEventOn,
  onlyNodeOfKind,
  resultText,
  runFlow,
  stillRunning,
  toolNamesOf,
  toolOffered,
  toolResultsOf,
  valueOf,
} from '../support/integration-helpers.js';

const Answer = z.object({ answer: z.string() });
const ENV_NAME = 'GS_INTEGRATION_SECRET';

/** The mcpEvents of a node by phase, in the order they happened. */
function phases(node: WorkflowNode): McpEvent['phase'][] {
  return eventsOn(node, 'mcpEvent').map((event) => event.phase);
}

/** Position of an event in the recorded stream (to check ordering across nodes). */
function positionOf(events: readonly WorkflowEvent[], match: (event: WorkflowEvent) => boolean): number {
  const index = events.findIndex(match);
  if (index === -1) throw new Error('expected the event to be recorded');
  return index;
}

/**
 * A responder for a one-tool conversation: the first turn calls `tool` with `input`, the turn
 * after the tool result answers with that result's text. Keyed on the request, not on order, so
 * concurrent calls each get their own conversation.
 */
function callThenReport(tool: string, input: Readonly<Record<string, unknown>>): (request: RecordedRequest) => ScriptStep {
  return (request) => {
    const results = toolResultsOf(request);
    if (results.length === 0) return toolUse(tool, input);
    return json({ answer: `${results[0]?.is_error === true ? 'error: ' : ''}${resultText(results[0])}` });
  };
}

describe('agent with an in-process MCP server', () => {
  it('offers the tools as mcp__<server>__<tool>, runs the call and sends the result back as tool_result', async () => {
    const { server } = createInProcessServer();
    const mcps: McpServerConfig[] = [{ name: 'kb', transport: 'in-process', server }];
    const model = new ScriptedModel([toolUse('mcp__kb__echo', { text: 'ping' }, { id: 'toolu_echo' }), json({ answer: 'pong' })]);
    const agent = createAgent({ name: 'mcp-user', client: model.client(), mcps });
    const run = await runFlow((ctx) => ctx.step('ask', () => agent.execute(createPrompt({ user: 'Echo ping', responseFormat: Answer }))));
    const result = valueOf(run.outcome);

    expect(result.value).toEqual({ answer: 'pong' });
    expect(toolNamesOf(model.requests[0]).sort()).toEqual(
      ['echo', 'env', 'fail', 'hold', 'throws'].map((tool) => `mcp__kb__${tool}`),
    );
    expect(toolOffered(model.requests[0], 'mcp__kb__echo')).toMatchObject({
      description: 'Returns its input text.',
      input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
    expect(toolResultsOf(model.requests[1])).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_echo', content: 'ping', is_error: false },
    ]);
    expect(result.toolCalls).toEqual([
      expect.objectContaining({ toolUseId: 'toolu_echo', name: 'mcp__kb__echo', kind: 'mcp', output: 'ping', isError: false }),
    ]);

    const prompt = onlyNodeOfKind(run.workflow.node, 'agentPrompt');
    const mcpCall = onlyNodeOfKind(run.workflow.node, 'mcpCall');
    expect(mcpCall.parent).toBe(prompt);
    expect(mcpCall).toMatchObject({ name: 'mcp__kb__echo', status: 'completed' });
    expect(onlyEventOn(mcpCall, 'mcpEvent')).toMatchObject({
      server: 'kb',
      phase: 'call',
      toolName: 'mcp__kb__echo',
      toolUseId: 'toolu_echo',
      input: { text: 'ping' },
      output: 'ping',
      isError: false,
    });
    expect(phases(prompt)).toEqual(['connected', 'closed']);
    expect(eventsOn(prompt, 'mcpEvent').every((event) => event.server === 'kb')).toBe(true);
    // connected → call → closed → agentPromptEnd, as they happened.
    const events = run.recording.events;
    const connected = positionOf(events, (e) => e.type === 'mcpEvent' && e.phase === 'connected');
    const call = positionOf(events, (e) => e.type === 'mcpEvent' && e.phase === 'call');
    const closed = positionOf(events, (e) => e.type === 'mcpEvent' && e.phase === 'closed');
    const end = positionOf(events, (e) => e.type === 'agentPromptEnd');
    expect([connected, call, closed, end]).toEqual([...[connected, call, closed, end]].sort((a, b) => a - b));
    expect(new WorkflowTreeDebugger(run.workflow).toTreeString()).toMatch(/✓ mcp__kb__echo \[mcpCall\]/);

    // Closed after the call: the server is free again.
    expect(server.isConnected()).toBe(false);
    model.assertComplete();
  });

  it('an MCP error result and a throwing handler go back as is_error; the loop goes on', async () => {
    const { server } = createInProcessServer();
    const model = new ScriptedModel([
      toolUse([
        { name: 'mcp__kb__fail', input: {}, id: 'toolu_fail' },
        { name: 'mcp__kb__throws', input: {}, id: 'toolu_throws' },
      ]),
      json({ answer: 'coped' }),
    ]);
    const agent = createAgent({ name: 'mcp-user', client: model.client(), mcps: [{ name: 'kb', transport: 'in-process', server }] });
    const run = await runFlow((ctx) => ctx.step('ask', () => agent.prompt(createPrompt({ user: 'Break things', responseFormat: Answer }))));
    expect(valueOf(run.outcome)).toEqual({ answer: 'coped' });
    const [fail, thrown] = toolResultsOf(model.requests[1]);
    expect(fail).toMatchObject({ tool_use_id: 'toolu_fail', is_error: true, content: 'fail tool failed on purpose' });
    expect(thrown).toMatchObject({ tool_use_id: 'toolu_throws', is_error: true });
    expect(resultText(thrown)).toContain('handler blew up');
    const calls = nodesOfKind(run.workflow.node, 'mcpCall');
    expect(calls.map((node) => [node.name, node.status])).toEqual([
      ['mcp__kb__fail', 'failed'],
      ['mcp__kb__throws', 'failed'],
    ]);
    expect(calls.map((node) => onlyEventOn(node, 'mcpEvent').isError)).toEqual([true, true]);
    expect(onlyNodeOfKind(run.workflow.node, 'agentPrompt').status).toBe('completed');
    expect(stillRunning(run.workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it("gives each concurrent call its own env (in the request _meta), and leaves process.env alone", async () => {
    const { server } = createInProcessServer();
    const before = { ...process.env };
    const model = new ScriptedModel(callThenReport('mcp__kb__env', { name: ENV_NAME }));
    const agent = createAgent({
      name: 'mcp-env',
      client: model.client(),
      mcps: [{ name: 'kb', transport: 'in-process', server }],
      env: { [ENV_NAME]: 'from-agent' },
    });
    const run = await runFlow((ctx) =>
      Promise.all([
        ctx.step('agent-env', () => agent.prompt(createPrompt({ user: 'Which secret (agent)?', responseFormat: Answer }))),
        ctx.step('call-a', () => agent.prompt(createPrompt({ user: 'Which secret (a)?', responseFormat: Answer }), { env: { [ENV_NAME]: 'a' } })),
        ctx.step('call-b', () => agent.prompt(createPrompt({ user: 'Which secret (b)?', responseFormat: Answer }), { env: { [ENV_NAME]: 'b' } })),
      ]),
    );
    expect(valueOf(run.outcome)).toEqual([{ answer: 'from-agent' }, { answer: 'a' }, { answer: 'b' }]);
    expect(process.env).toEqual(before);
    expect(process.env[ENV_NAME]).toBeUndefined();
    expect(nodesOfKind(run.workflow.node, 'mcpCall')).toHaveLength(3);
    expect(server.isConnected()).toBe(false);
  });
});

// Starting a child under tsx dominates these tests, so they run concurrently; the timeout is for
// that start-up on a loaded machine, not for any expected wait.
describe.concurrent('agent with the stdio echo server', { timeout: 30_000 }, () => {
  it('offers mcp__echo__<tool>, runs calls in the child and closes it after the call (its pid is gone)', async () => {
    const model = new ScriptedModel([
      toolUse([
        { name: 'mcp__echo__echo', input: { text: 'over stdio' }, id: 'toolu_echo' },
        { name: 'mcp__echo__pid', input: {}, id: 'toolu_pid' },
      ]),
      json({ answer: 'done' }),
    ]);
    const agent = createAgent({ name: 'stdio-user', client: model.client(), mcps: [echoServerConfig()] });
    const run = await runFlow((ctx) => ctx.step('ask', () => agent.execute(createPrompt({ user: 'Use stdio', responseFormat: Answer }))));
    expect(valueOf(run.outcome).value).toEqual({ answer: 'done' });

    expect(toolNamesOf(model.requests[0]).sort()).toEqual(
      ['crash', 'echo', 'env', 'fail', 'mixed', 'pid', 'sleep'].map((tool) => `mcp__echo__${tool}`),
    );
    const [echo, pid] = toolResultsOf(model.requests[1]);
    expect(echo).toEqual({ type: 'tool_result', tool_use_id: 'toolu_echo', content: 'over stdio', is_error: false });
    expect(pid).toMatchObject({ tool_use_id: 'toolu_pid', is_error: false });
    const childPid = Number(resultText(pid));
    expect(Number.isInteger(childPid) && childPid > 0 && childPid !== process.pid).toBe(true);
    // The call has ended, so its server process has been reaped.
    expect(isAlive(childPid)).toBe(false);

    const prompt = onlyNodeOfKind(run.workflow.node, 'agentPrompt');
    expect(phases(prompt)).toEqual(['connected', 'closed']);
    const calls = nodesOfKind(run.workflow.node, 'mcpCall');
    expect(calls.map((node) => [node.name, node.status, node.parent === prompt])).toEqual([
      ['mcp__echo__echo', 'completed', true],
      ['mcp__echo__pid', 'completed', true],
    ]);
    expect(onlyEventOn(calls[0] as WorkflowNode, 'mcpEvent')).toMatchObject({ server: 'echo', phase: 'call', output: 'over stdio' });
    model.assertComplete();
  });

  it('closes the connection (and reaps the child) when the call fails after connecting', async () => {
    const model = new ScriptedModel([toolUse('mcp__echo__pid', {}, { id: 'toolu_pid' }), malformedJson()]);
    const agent = createAgent({ name: 'stdio-fail', client: model.client(), mcps: [echoServerConfig()] });
    const run = await runFlow((ctx) => ctx.step('ask', () => agent.prompt(createPrompt({ user: 'Then garble', responseFormat: Answer }))));
    expect((errorOf(run.outcome) as WorkflowError).cause).toBeInstanceOf(StructuredOutputError);
    const childPid = Number(resultText(toolResultsOf(model.requests[1])[0]));
    expect(Number.isInteger(childPid) && childPid > 0).toBe(true);
    expect(isAlive(childPid)).toBe(false);
    const prompt = onlyNodeOfKind(run.workflow.node, 'agentPrompt');
    expect(prompt.status).toBe('failed');
    expect(phases(prompt)).toEqual(['connected', 'closed']);
    expect(stillRunning(run.workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it("passes the agent's env (or the call's) to the child for that call only; process.env unchanged", async () => {
    const before = { ...process.env };
    const model = new ScriptedModel(callThenReport('mcp__echo__env', { name: ENV_NAME }));
    const agent = createAgent({
      name: 'stdio-env',
      client: model.client(),
      mcps: [echoServerConfig()],
      env: { [ENV_NAME]: 'from-agent' },
    });
    const run = await runFlow((ctx) =>
      Promise.all([
        ctx.step('agent-env', () => agent.prompt(createPrompt({ user: 'Secret (agent)?', responseFormat: Answer }))),
        ctx.step('call-env', () =>
          agent.prompt(createPrompt({ user: 'Secret (call)?', responseFormat: Answer }), { env: { [ENV_NAME]: 'from-call' } }),
        ),
      ]),
    );
    expect(valueOf(run.outcome)).toEqual([{ answer: 'from-agent' }, { answer: 'from-call' }]);
    expect(process.env).toEqual(before);
    expect(process.env[ENV_NAME]).toBeUndefined();
    // The model got each value in its tool result; the tree keeps env values masked.
    const sent = model.requests.flatMap((request) => toolResultsOf(request).map(resultText));
    expect(sent.sort()).toEqual(['from-agent', 'from-call']);
    const outputs = nodesOfKind(run.workflow.node, 'mcpCall').map((node) => onlyEventOn(node, 'mcpEvent').output);
    expect(outputs).toEqual(['***', '***']);
    expect(stillRunning(run.workflow.node)).toEqual([]);
  });

  it('a server that crashes mid-call gives is_error results; the agent goes on and the tree is complete', async () => {
    const model = new ScriptedModel([
      toolUse('mcp__echo__crash', {}, { id: 'toolu_crash' }),
      toolUse('mcp__echo__echo', { text: 'anyone there?' }, { id: 'toolu_after' }),
      json({ answer: 'the server died' }),
    ]);
    const agent = createAgent({ name: 'stdio-crash', client: model.client(), mcps: [echoServerConfig()] });
    const run = await runFlow((ctx) => ctx.step('ask', () => agent.prompt(createPrompt({ user: 'Crash it', responseFormat: Answer }))));
    expect(valueOf(run.outcome)).toEqual({ answer: 'the server died' });

    const [crash] = toolResultsOf(model.requests[1]);
    expect(crash).toMatchObject({ tool_use_id: 'toolu_crash', is_error: true });
    expect(resultText(crash)).toMatch(/^MCP server "echo" failed: the server process exited/);
    expect(resultText(crash)).toContain('echo-server: crashing on request');
    const [after] = toolResultsOf(model.requests[2]);
    expect(after).toMatchObject({ tool_use_id: 'toolu_after', is_error: true });
    expect(resultText(after)).toMatch(/^MCP server "echo" failed/);

    const calls = nodesOfKind(run.workflow.node, 'mcpCall');
    expect(calls.map((node) => [node.name, node.status])).toEqual([
      ['mcp__echo__crash', 'failed'],
      ['mcp__echo__echo', 'failed'],
    ]);
    expect(onlyEventOn(calls[0] as WorkflowNode, 'mcpEvent')).toMatchObject({ phase: 'call', server: 'echo', isError: true });
    const prompt = onlyNodeOfKind(run.workflow.node, 'agentPrompt');
    expect(prompt.status).toBe('completed');
    expect(phases(prompt)).toEqual(['connected', 'closed']);
    expect(run.workflow.node.status).toBe('completed');
    expect(stillRunning(run.workflow.node)).toEqual([]);
    const tree = new WorkflowTreeDebugger(run.workflow).toTreeString();
    expect(tree).toMatch(/✗ mcp__echo__crash \[mcpCall\]/);
    expect(tree).not.toContain('(running)');
    model.assertComplete();
  });

  it('a server that cannot start fails the call with McpConnectionError; the prompt node is failed', async () => {
    const model = new ScriptedModel([]);
    const agent = createAgent({
      name: 'stdio-ghost',
      client: model.client(),
      mcps: [{ name: 'ghost', transport: 'stdio', command: '/nonexistent/mcp-server-xyz' }],
    });
    const run = await runFlow((ctx) => ctx.step('ask', () => agent.prompt(createPrompt({ user: 'Use ghost', responseFormat: Answer }))));
    const error = errorOf(run.outcome);
    expect(error).toBeInstanceOf(WorkflowError);
    const cause = (error as WorkflowError).cause;
    expect(cause).toBeInstanceOf(McpConnectionError);
    expect((cause as McpConnectionError).server).toBe('ghost');
    expect((cause as McpConnectionError).message).toMatch(/^MCP server "ghost" could not be started/);

    const prompt = onlyNodeOfKind(run.workflow.node, 'agentPrompt');
    expect(prompt.status).toBe('failed');
    expect(onlyEventOn(prompt, 'agentPromptEnd')).toMatchObject({
      status: 'failed',
      cached: false,
      error: expect.objectContaining({ name: 'McpConnectionError' }),
    });
    expect(phases(prompt)).not.toContain('connected');
    expect(nodesOfKind(run.workflow.node, 'mcpCall')).toEqual([]);
    expect(run.workflow.node.children[0]?.status).toBe('failed');
    expect(stillRunning(run.workflow.node)).toEqual([]);
    expect(eventsOfType(run.recording.events, 'agentPromptStart')).toHaveLength(1);
    // No model request was made for a call whose tools could not be set up.
    expect(model.requests).toHaveLength(0);
    model.assertComplete();
  });
});
