import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  defineTool,
  getCurrentWorkflow,
  Step,
  StructuredOutputError,
  usageRollup,
  Workflow,
  WorkflowCancelledError,
  WorkflowError,
  WorkflowTreeDebugger,
  type TokenUsage,
} from 'groundswell';
import { json, malformedJson, ScriptedModel, toolUse } from 'groundswell/testing';
import { adder, Answer, failed, onlyChild, runInStep, runningNodes } from '../support/agent-helpers.js';
import { must } from '../support/core-helpers.js';
import { deferred } from '../support/deferred.js';
import { eventsOfType, record } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';
import { agentModel, nativeOnly, pathUsage, providerPath } from '../support/model-path.js';

const MODEL = 'claude-test-1';
const SumAnswer = z.object({ sum: z.number() });

/** An `add` tool that makes the fake clock advance by `ms` while it runs, so durations are exact. */
function slowAdd(clock: FakeClock, ms: number) {
  return defineTool({
    name: 'add',
    description: 'Adds two numbers.',
    input: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => {
      clock.advance(ms);
      return a + b;
    },
  });
}

/** Turn 1 calls `add`, turn 2 answers; the two turns report different usage. */
function addThenAnswer(): ScriptedModel {
  return new ScriptedModel([
    toolUse('add', { a: 2, b: 3 }, {
      id: 'toolu_add_1',
      usage: { input_tokens: 20, output_tokens: 10, cache_creation_input_tokens: 4, cache_read_input_tokens: 2 },
    }),
    json(
      { sum: 5 },
      { usage: { input_tokens: 100, output_tokens: 50, cache_creation_input_tokens: 7, cache_read_input_tokens: 3 } },
    ),
  ]);
}
// Turn 1 scripts 20 in, 10 out, 4 cache write, 2 cache read: every counter distinct, so a swap shows.
// On the provider path the cache writes count as input (pathUsage).
const TWO_TURN_USAGE: TokenUsage = pathUsage({
  inputTokens: 120,
  outputTokens: 60,
  cacheCreationInputTokens: 11,
  cacheReadInputTokens: 5,
});

describe('an agent call inside ctx.step', () => {
  it('is an agentPrompt node under the step, with one toolCall node per tool call beneath it', async () => {
    const clock = new FakeClock();
    const model = addThenAnswer();
    const agent = createAgent({ name: 'calc', ...(await agentModel(model, { model: MODEL })), tools: [slowAdd(clock, 250)] });
    const prompt = createPrompt({ user: 'What is 2+3?', name: 'sum', responseFormat: SumAnswer });
    const run = await runInStep(() => agent.prompt(prompt), { clock });

    expect(run.outcome).toEqual({ ok: true, value: { sum: 5 } });
    const promptNode = onlyChild(run.step, 'agentPrompt');
    expect(promptNode.name).toBe('calc: sum');
    expect(promptNode.status).toBe('completed');
    expect(promptNode.parent).toBe(run.step);
    expect(promptNode.workflowId).toBe(run.workflow.id);
    expect(promptNode.usage).toEqual(TWO_TURN_USAGE);
    const toolNode = onlyChild(promptNode, 'toolCall');
    expect(toolNode.name).toBe('add');
    expect(toolNode.status).toBe('completed');
    expect(toolNode.children).toHaveLength(0);
    model.assertComplete();
  });

  it('emits agentPromptStart and agentPromptEnd (model, stopReason, usage with cache tokens, duration, turns)', async () => {
    const clock = new FakeClock();
    const model = addThenAnswer();
    const agent = createAgent({ name: 'calc', ...(await agentModel(model, { model: MODEL })), tools: [slowAdd(clock, 250)] });
    const prompt = createPrompt({ user: 'What is 2+3?', responseFormat: SumAnswer });
    const run = await runInStep(() => agent.prompt(prompt), { clock });
    const promptNode = onlyChild(run.step, 'agentPrompt');
    const events = run.recording.events;

    const [start] = eventsOfType(events, 'agentPromptStart');
    expect(eventsOfType(events, 'agentPromptStart')).toHaveLength(1);
    expect(start).toMatchObject({ nodeId: promptNode.id, workflowId: run.workflow.id, agentName: 'calc', model: MODEL, promptId: prompt.id });

    const ends = eventsOfType(events, 'agentPromptEnd');
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatchObject({
      nodeId: promptNode.id,
      agentName: 'calc',
      promptId: prompt.id,
      model: MODEL,
      status: 'completed',
      stopReason: 'end_turn',
      usage: TWO_TURN_USAGE,
      turns: 2,
      cached: false,
      duration: 250,
    });
    expect(ends[0]).not.toHaveProperty('error');

    // In the order they happened, inside the step's own start and end.
    const order = events
      .filter((e) => ['stepStart', 'stepEnd', 'agentPromptStart', 'agentPromptEnd', 'toolInvocation'].includes(e.type))
      .map((e) => e.type);
    expect(order).toEqual(['stepStart', 'agentPromptStart', 'toolInvocation', 'agentPromptEnd', 'stepEnd']);
    model.assertComplete();
  });

  it('its start, request and end events carry their ids first, in one field order, the same live and on the node', async () => {
    const clock = new FakeClock();
    const model = addThenAnswer();
    const agent = createAgent({ name: 'calc', ...(await agentModel(model, { model: MODEL })), tools: [slowAdd(clock, 250)] });
    const run = await runInStep(() => agent.prompt(createPrompt({ user: 'What is 2+3?', responseFormat: SumAnswer })), { clock });
    const promptNode = onlyChild(run.step, 'agentPrompt');
    const live = run.recording.events.filter((e) => e.nodeId === promptNode.id && e.type !== 'toolInvocation');
    expect(live.map((e) => e.type)).toEqual(['agentPromptStart', 'modelRequest', 'modelRequest', 'agentPromptEnd']);
    const ids = ['id', 'nodeId', 'workflowId', 'timestamp', 'type', 'agentName'];
    const provider = providerPath ? ['provider'] : [];
    expect(Object.keys(live[0] ?? {})).toEqual([...ids, 'model', 'promptId', ...provider]);
    // A provider model also gives its own word for the stop reason (`tool_calls`), right after the loop's.
    const providerWord = providerPath ? ['providerStopReason'] : [];
    expect(Object.keys(live[1] ?? {})).toEqual([...ids, ...provider, 'turn', 'requestModel', 'model', 'startTime', 'duration', 'stopReason', ...providerWord, 'usage']);
    expect(Object.keys(live[3] ?? {})).toEqual([...ids, 'model', 'promptId', 'status', 'duration', 'stopReason', 'usage', 'turns', 'cached', 'output']);
    // Ids increase in the order the events happened; the node keeps the very events observers saw.
    expect(live.map((e) => e.id)).toEqual([...live.map((e) => e.id)].sort((x, y) => x - y));
    expect(promptNode.events.filter((e) => e.type !== 'toolInvocation')).toEqual(live);
    expect(live[1]).toMatchObject({ turn: 1, duration: 0, stopReason: 'tool_use' });
    expect(live[3]).toMatchObject({ status: 'completed', duration: 250, turns: 2, cached: false, output: '{"sum":5}' });
    model.assertComplete();
  });

  it('puts a toolInvocation event on each toolCall node', async () => {
    const clock = new FakeClock();
    const model = new ScriptedModel([
      toolUse([
        { name: 'add', input: { a: 1, b: 2 }, id: 'toolu_a' },
        { name: 'add', input: { a: 10, b: 20 }, id: 'toolu_b' },
      ]),
      json({ sum: 33 }),
    ]);
    const agent = createAgent({ name: 'calc', ...(await agentModel(model)), tools: [slowAdd(clock, 40)] });
    const run = await runInStep(() => agent.prompt(createPrompt({ user: 'sum', responseFormat: SumAnswer })), { clock });
    const promptNode = onlyChild(run.step, 'agentPrompt');
    expect(promptNode.children.map((n) => [n.kind, n.name])).toEqual([
      ['toolCall', 'add'],
      ['toolCall', 'add'],
    ]);
    const invocations = eventsOfType(run.recording.events, 'toolInvocation');
    expect(invocations).toHaveLength(2);
    expect(invocations.map((e) => e.nodeId)).toEqual(promptNode.children.map((n) => n.id));
    expect(invocations[0]).toMatchObject({ toolName: 'add', toolUseId: 'toolu_a', input: { a: 1, b: 2 }, output: '3', isError: false, duration: 40 });
    expect(invocations[1]).toMatchObject({ toolName: 'add', toolUseId: 'toolu_b', input: { a: 10, b: 20 }, output: '30', isError: false, duration: 40 });
    // Each toolCall node holds its own event.
    expect(promptNode.children.map((n) => eventsOfType(n.events, 'toolInvocation').length)).toEqual([1, 1]);
    model.assertComplete();
  });

  it('a tool that fails is a failed toolCall node, while the prompt itself completes', async () => {
    const broken = defineTool({
      name: 'broken',
      description: 'Always fails.',
      input: z.object({}),
      execute: () => {
        throw new Error('disk full');
      },
    });
    const model = new ScriptedModel([toolUse('broken', {}), json({ answer: 'gave up on the tool' })]);
    const agent = createAgent({ name: 'a', ...(await agentModel(model)), tools: [broken] });
    const run = await runInStep(() => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })));
    expect(run.outcome.ok).toBe(true);
    const promptNode = onlyChild(run.step, 'agentPrompt');
    expect(promptNode.status).toBe('completed');
    expect(onlyChild(promptNode, 'toolCall').status).toBe('failed');
    const [invocation] = eventsOfType(run.recording.events, 'toolInvocation');
    expect(invocation?.isError).toBe(true);
    expect(invocation?.output).toContain('disk full');
    model.assertComplete();
  });

  it('keeps long tool output short in the tree but sends all of it to the model', async () => {
    const long = 'x'.repeat(5_000);
    const dump = defineTool({ name: 'dump', description: 'Big output.', input: z.object({}), execute: () => long });
    const model = new ScriptedModel([toolUse('dump', {}), json({ answer: 'ok' })]);
    const agent = createAgent({ name: 'a', ...(await agentModel(model)), tools: [dump] });
    const run = await runInStep(() => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })));
    const [invocation] = eventsOfType(run.recording.events, 'toolInvocation');
    expect(must(invocation, 'toolInvocation').output.length).toBeLessThan(long.length);
    expect(long.startsWith(must(invocation, 'toolInvocation').output.slice(0, 1_000))).toBe(true);
    const sentBack = JSON.stringify(model.requests[1]?.body.messages);
    expect(sentBack).toContain(long);
    model.assertComplete();
  });

  it('calls in concurrent steps each land under their own step', async () => {
    const model = new ScriptedModel((request) => json({ answer: `re: ${request.firstUserText ?? ''}` }));
    const agent = createAgent({ name: 'shared', ...(await agentModel(model)) });
    const workflow = createWorkflow({ name: 'fan-out' }, (ctx) =>
      Promise.all(
        ['a', 'b', 'c'].map((name) => ctx.step(`step-${name}`, () => agent.prompt(createPrompt({ user: name, responseFormat: Answer })))),
      ),
    );
    await expect(workflow.run()).resolves.toEqual([{ answer: 're: a' }, { answer: 're: b' }, { answer: 're: c' }]);
    for (const name of ['a', 'b', 'c']) {
      const step = must(
        workflow.node.children.find((n) => n.name === `step-${name}`),
        `step-${name}`,
      );
      expect(onlyChild(step, 'agentPrompt').name).toBe(`shared: ${name}`);
    }
    model.assertComplete();
  });

  it('work a tool starts (another agent call) mounts under that toolCall node', async () => {
    const model = new ScriptedModel([toolUse('research', { topic: 'tides' }), json({ answer: 'inner' }), json({ answer: 'outer' })]);
    const modelPath = await agentModel(model);
    const researcher = createAgent({ name: 'researcher', ...modelPath });
    const research = defineTool({
      name: 'research',
      description: 'Asks the researcher agent.',
      input: z.object({ topic: z.string() }),
      execute: async ({ topic }) => (await researcher.prompt(createPrompt({ user: topic, responseFormat: Answer }))).answer,
    });
    const lead = createAgent({ name: 'lead', ...modelPath, tools: [research] });
    const run = await runInStep(() => lead.prompt(createPrompt({ user: 'plan', responseFormat: Answer })));
    expect(run.outcome).toEqual({ ok: true, value: { answer: 'outer' } });
    const leadNode = onlyChild(run.step, 'agentPrompt');
    const toolNode = onlyChild(leadNode, 'toolCall');
    const inner = onlyChild(toolNode, 'agentPrompt');
    expect(inner.name).toBe('researcher: tides');
    expect(inner.status).toBe('completed');
    model.assertComplete();
  });
});

describe('an agent call inside a @Step', () => {
  it('creates the agentPrompt node (and its toolCall nodes) under the decorated step', async () => {
    const clock = new FakeClock();
    const model = addThenAnswer();
    const agent = createAgent({ name: 'calc', ...(await agentModel(model, { model: MODEL })), tools: [slowAdd(clock, 5)] });
    const prompt = createPrompt({ user: 'What is 2+3?', name: 'sum', responseFormat: SumAnswer });

    class MathFlow extends Workflow<number> {
      constructor() {
        super({ name: 'math', clock });
      }
      @Step() async solve(): Promise<number> {
        return (await agent.prompt(prompt)).sum;
      }
      override async run(): Promise<number> {
        return this.solve();
      }
    }
    const workflow = new MathFlow();
    const { events } = record(workflow);
    await expect(workflow.run()).resolves.toBe(5);

    const step = onlyChild(workflow.node, 'step');
    expect(step.name).toBe('solve');
    const promptNode = onlyChild(step, 'agentPrompt');
    expect(promptNode.name).toBe('calc: sum');
    expect(onlyChild(promptNode, 'toolCall').name).toBe('add');
    const [end] = eventsOfType(events, 'agentPromptEnd');
    expect(end).toMatchObject({ nodeId: promptNode.id, status: 'completed', turns: 2, usage: TWO_TURN_USAGE, duration: 5 });
    expect(eventsOfType(events, 'toolInvocation').map((e) => e.nodeId)).toEqual([promptNode.children[0]?.id]);
    model.assertComplete();
  });
});

describe('an agent call outside any workflow', () => {
  it('still works and reports what it took', async () => {
    expect(getCurrentWorkflow()).toBeUndefined();
    const { tool, calls } = adder();
    const model = addThenAnswer();
    const agent = createAgent({ name: 'calc', ...(await agentModel(model)), tools: [tool] });
    const result = await agent.execute(createPrompt({ user: 'What is 2+3?', responseFormat: SumAnswer }));
    expect(result.value).toEqual({ sum: 5 });
    expect(result.turns).toBe(2);
    expect(result.usage).toEqual(TWO_TURN_USAGE);
    expect(result.stopReason).toBe('end_turn');
    expect(result.cached).toBe(false);
    expect(typeof result.duration).toBe('number');
    expect(result.toolCalls).toEqual([
      expect.objectContaining({ toolUseId: 'toolu_add_1', name: 'add', kind: 'local', input: { a: 2, b: 3 }, output: '5', isError: false }),
    ]);
    expect(calls).toEqual([{ a: 2, b: 3 }]);
    model.assertComplete();
  });
});

describe('a failed agent call', () => {
  it('leaves the prompt node failed with an agentPromptEnd carrying the error, and fails the step with it as cause', async () => {
    const model = new ScriptedModel([malformedJson('{"answer": "cut off')]);
    const agent = createAgent({ name: 'flaky', ...(await agentModel(model)) });
    const run = await runInStep(() => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })));

    const error = failed(run.outcome);
    expect(error).toBeInstanceOf(WorkflowError);
    const cause = (error as WorkflowError).cause;
    expect(cause).toBeInstanceOf(StructuredOutputError);
    expect((error as WorkflowError).original).toBe(cause);
    expect((error as WorkflowError).nodeId).toBe(run.step.id);

    const promptNode = onlyChild(run.step, 'agentPrompt');
    expect(promptNode.status).toBe('failed');
    expect(run.step.status).toBe('failed');
    expect(run.workflow.status).toBe('failed');
    const [end] = eventsOfType(run.recording.events, 'agentPromptEnd');
    expect(end).toMatchObject({
      nodeId: promptNode.id,
      status: 'failed',
      error: { name: 'StructuredOutputError', message: (cause as Error).message },
    });
    // The failure is reported once, on the step where it surfaced.
    const errorEvents = eventsOfType(run.recording.events, 'error');
    expect(errorEvents.map((e) => e.nodeId)).toContain(run.step.id);
    expect(errorEvents.filter((e) => e.nodeId === run.step.id)).toHaveLength(1);
    expect(runningNodes(run.workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('cancelling the workflow aborts the request in flight and marks the prompt node cancelled', async () => {
    const requested = deferred();
    const model = new ScriptedModel(() => {
      requested.resolve();
      return json({ answer: 'too late' }, { delayMs: 60_000 });
    });
    const agent = createAgent({ name: 'slow', ...(await agentModel(model)) });
    const workflow = createWorkflow({ name: 'cancel-me' }, (ctx) =>
      ctx.step('ask', () => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer }))),
    );
    const { events } = record(workflow);
    const run = workflow.run();
    await requested.promise;
    workflow.cancel('user pressed stop');
    await expect(run).rejects.toBeInstanceOf(WorkflowCancelledError);
    const step = onlyChild(workflow.node, 'step');
    expect(step.status).toBe('cancelled');
    expect(onlyChild(step, 'agentPrompt').status).toBe('cancelled');
    expect(eventsOfType(events, 'agentPromptEnd')).toEqual([expect.objectContaining({ status: 'cancelled' })]);
    expect(runningNodes(workflow.node)).toEqual([]);
    expect(model.requests).toHaveLength(1);
    model.assertComplete();
  });

  // Turns already answered were paid for, so they count in the event, the node and the rollups.
  it('still counts the tokens it spent before failing', async () => {
    const model = new ScriptedModel([toolUse('add', { a: 1, b: 1 }), malformedJson()]);
    const agent = createAgent({ name: 'costly', ...(await agentModel(model)), tools: [adder().tool] });
    const run = await runInStep(() => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })));
    expect(run.outcome.ok).toBe(false);
    const spent: TokenUsage = { inputTokens: 40, outputTokens: 20, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };
    const [end] = eventsOfType(run.recording.events, 'agentPromptEnd');
    expect(end).toMatchObject({ status: 'failed', usage: spent, turns: 2 });
    expect(onlyChild(run.step, 'agentPrompt').usage).toEqual(spent);
    expect(new WorkflowTreeDebugger(run.workflow).getStats().usage).toEqual(spent);
    model.assertComplete();
  });

  it('outside a workflow rejects with the error itself (nothing wraps it)', async () => {
    const model = new ScriptedModel([malformedJson()]);
    const agent = createAgent({ name: 'flaky', ...(await agentModel(model)) });
    await expect(agent.prompt(createPrompt({ user: 'go', responseFormat: Answer }))).rejects.toBeInstanceOf(StructuredOutputError);
    model.assertComplete();
  });
});

describe('usage and cost roll up the tree', () => {
  const BIG = { input_tokens: 1_000, output_tokens: 500, cache_creation_input_tokens: 200, cache_read_input_tokens: 100 };
  // $3 in, $15 out per MTok; cache write defaults to 1.25 x input, cache read to 0.1 x input.
  const COST_ONE_CALL = (1_000 * 3 + 500 * 15 + 200 * 3.75 + 100 * 0.3) / 1_000_000;

  async function twoPricedCalls(pricing: Parameters<typeof createAgent>[0]['pricing']) {
    const model = new ScriptedModel([json({ answer: 'one' }, { usage: BIG }), json({ answer: 'two' }, { usage: BIG })]);
    const agent = createAgent({ name: 'priced', ...(await agentModel(model, { model: MODEL })), pricing });
    const workflow = createWorkflow({ name: 'costs' }, async (ctx) => {
      await ctx.step('first', () => agent.prompt(createPrompt({ user: 'one', responseFormat: Answer })));
      await ctx.step('second', () => agent.prompt(createPrompt({ user: 'two', responseFormat: Answer })));
    });
    await workflow.run();
    model.assertComplete();
    return workflow;
  }

  // Cache-write tokens and their price: Chat Completions reports no cache writes.
  nativeOnly('usageRollup gives every node the total of its subtree, with cost when priced', async () => {
    const workflow = await twoPricedCalls({ [MODEL]: { inputPerMTok: 3, outputPerMTok: 15 } });
    const rollup = usageRollup(workflow.node);
    const [first, second] = workflow.node.children;
    const one = must(first, 'first step');
    for (const node of [one, onlyChild(one, 'agentPrompt'), must(second, 'second step')]) {
      const usage = must(rollup.get(node), `usage of ${node.name}`);
      expect(usage).toMatchObject({ inputTokens: 1_000, outputTokens: 500, cacheCreationInputTokens: 200, cacheReadInputTokens: 100 });
      expect(usage.costUsd).toBeCloseTo(COST_ONE_CALL, 10);
    }
    const total = must(rollup.get(workflow.node), 'workflow usage');
    expect(total).toMatchObject({ inputTokens: 2_000, outputTokens: 1_000, cacheCreationInputTokens: 400, cacheReadInputTokens: 200 });
    expect(total.costUsd).toBeCloseTo(2 * COST_ONE_CALL, 10);

    const debug = new WorkflowTreeDebugger(workflow);
    expect(debug.getStats().usage).toEqual(total);
    const lines = debug.toTreeString().split('\n');
    expect(lines[0]).toContain(`2,000 in / 1,000 out tok (+400 cache write, 200 cache read) $${(2 * COST_ONE_CALL).toFixed(4)}`);
    const promptLines = lines.filter((line) => line.includes('[agentPrompt]'));
    expect(promptLines).toHaveLength(2);
    for (const line of promptLines) {
      expect(line).toContain(`1,000 in / 500 out tok (+200 cache write, 100 cache read) $${COST_ONE_CALL.toFixed(4)}`);
    }
  });

  // Cache-write tokens and their price: Chat Completions reports no cache writes.
  nativeOnly('uses explicit cache prices when given', async () => {
    const workflow = await twoPricedCalls({
      [MODEL]: { inputPerMTok: 3, outputPerMTok: 15, cacheWritePerMTok: 10, cacheReadPerMTok: 1 },
    });
    const cost = (1_000 * 3 + 500 * 15 + 200 * 10 + 100 * 1) / 1_000_000;
    expect(new WorkflowTreeDebugger(workflow).getStats().usage.costUsd).toBeCloseTo(2 * cost, 10);
  });

  // Cache-write tokens and their price: Chat Completions reports no cache writes.
  nativeOnly('prices by the model asked for when the API answers with a dated id of it', async () => {
    const model = new ScriptedModel([json({ answer: 'x' }, { usage: BIG, model: `${MODEL}-20250101` })]);
    const agent = createAgent({ name: 'alias', ...(await agentModel(model, { model: MODEL })), pricing: { [MODEL]: { inputPerMTok: 3, outputPerMTok: 15 } } });
    const result = await agent.execute(createPrompt({ user: 'x', responseFormat: Answer }));
    expect(result.model).toBe(`${MODEL}-20250101`);
    expect(result.usage.costUsd).toBeCloseTo(COST_ONE_CALL, 10);
    model.assertComplete();
  });

  // Cache-write tokens and their price: Chat Completions reports no cache writes.
  nativeOnly('shows tokens without any cost when no price covers the model', async () => {
    for (const pricing of [undefined, { 'some-other-model': { inputPerMTok: 3, outputPerMTok: 15 } }]) {
      const workflow = await twoPricedCalls(pricing);
      const debug = new WorkflowTreeDebugger(workflow);
      expect(debug.getStats().usage).toEqual({ inputTokens: 2_000, outputTokens: 1_000, cacheCreationInputTokens: 400, cacheReadInputTokens: 200 });
      const text = debug.toTreeString();
      expect(text).toContain('2,000 in / 1,000 out tok');
      expect(text).not.toContain('$');
    }
  });

  it('nodes that spent nothing have no rollup entry, and an exported run still shows the tokens', async () => {
    const clock = new FakeClock();
    const model = addThenAnswer();
    const agent = createAgent({ name: 'calc', ...(await agentModel(model)), tools: [slowAdd(clock, 1)] });
    const run = await runInStep(() => agent.prompt(createPrompt({ user: 'sum', responseFormat: SumAnswer })), { clock });
    const toolNode = onlyChild(onlyChild(run.step, 'agentPrompt'), 'toolCall');
    const rollup = usageRollup(run.workflow.node);
    expect(rollup.has(toolNode)).toBe(false);
    expect(rollup.get(run.workflow.node)).toEqual(TWO_TURN_USAGE);

    const live = new WorkflowTreeDebugger(run.workflow);
    const loaded = WorkflowTreeDebugger.fromJSON(JSON.stringify(live.toJSON()));
    expect(loaded.getStats().usage).toEqual(TWO_TURN_USAGE);
    expect(loaded.toTreeString()).toContain(providerPath ? '131 in / 60 out tok (+5 cache read)' : '120 in / 60 out tok (+11 cache write, 5 cache read)');
    model.assertComplete();
  });
});
