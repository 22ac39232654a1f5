import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, type Agent, type Workflow, type WorkflowNode } from 'groundswell';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { introspectionTools } from '../../src/introspection/introspection-tools.js';
import type { AgentRegistry } from '../../src/introspection/spawn-agent.js';
import { defineSpawnableWorkflow } from '../../src/introspection/spawn-workflow.js';
import { Answer, onlyChild, runningNodes } from '../support/agent-helpers.js';
import { allNodes, shape } from '../support/core-helpers.js';
import { record } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';
import { child, field, sentAnswer, sentError, sentResults } from './helpers.js';

const ask = (user: string) => createPrompt({ user, responseFormat: Answer });

/** A small registered workflow: counts the words of `input.text` in one step. */
function wordCount(input: unknown): Workflow<{ words: number }> {
  const text = String(field(input, 'text') ?? '');
  return createWorkflow({ name: 'word-count' }, (ctx) => ctx.step('count', () => ({ words: text.split(/\s+/).filter(Boolean).length })));
}

/** Runs `agent` with `user` in the step "plan" of a root workflow with a recorder. */
async function runInPlan(agent: Agent, user = 'Plan the work') {
  const workflow = createWorkflow({ name: 'root', clock: new FakeClock({ tick: 1 }) }, (ctx) => ctx.step('plan', () => agent.prompt(ask(user))));
  const recording = record(workflow);
  const outcome = await workflow.run().then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const call = onlyChild(child(workflow.node, 'step', 'plan'), 'agentPrompt');
  return { workflow, recording, outcome, call };
}

function kindsOf(nodes: readonly WorkflowNode[]): string[] {
  return nodes.map((node) => `${node.kind}:${node.name}`);
}

describe('request_spawn_workflow', () => {
  it('creates the registered workflow, runs it under the tool node, and returns its result', async () => {
    const model = new ScriptedModel([
      toolUse('request_spawn_workflow', { name: 'word-count', input: { text: 'the quick brown fox' } }),
      json({ answer: '4 words' }),
    ]);
    const agent = createAgent({ name: 'planner', client: model.client(), tools: introspectionTools({ workflows: { 'word-count': wordCount } }) });
    const { workflow, recording, outcome, call } = await runInPlan(agent);
    expect(outcome).toEqual({ ok: true, value: { answer: '4 words' } });

    const tool = onlyChild(call, 'toolCall');
    expect(tool.name).toBe('request_spawn_workflow');
    const spawned = onlyChild(tool, 'workflow');
    expect(shape(spawned)).toEqual({
      name: 'word-count',
      kind: 'workflow',
      children: [{ name: 'count', kind: 'step', children: [] }],
    });
    expect(spawned.status).toBe('completed');
    expect(workflow.children.map((c) => c.id)).toEqual([spawned.id]);

    expect(sentAnswer(model, 1)).toEqual({
      workflow: { id: spawned.id, name: 'word-count', status: 'completed' },
      mountedUnder: tool.id,
      spawnDepth: 1,
      result: { words: 4 },
    });
    // The spawned workflow's own events reached the root's observer.
    const fromSpawned = recording.events.filter((event) => event.workflowId === spawned.id).map((event) => event.type);
    expect(fromSpawned).toEqual(['workflowStart', 'stepStart', 'stepEnd', 'workflowEnd']);
    expect(recording.events).toContainEqual(expect.objectContaining({ type: 'childAttached', childId: spawned.id }));
    expect(runningNodes(workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('an unknown name: is_error listing the registered names, and it costs no spawn budget', async () => {
    const model = new ScriptedModel([
      toolUse('request_spawn_workflow', { name: 'summarize' }),
      toolUse('request_spawn_workflow', { name: 'word-count', input: { text: 'a b' } }),
      json({ answer: 'done' }),
    ]);
    const tools = introspectionTools({
      workflows: { 'word-count': wordCount, translate: () => createWorkflow('translate', () => 'hola') },
      limits: { maxSpawnsPerRun: 1 },
    });
    const agent = createAgent({ name: 'planner', client: model.client(), tools });
    const { workflow } = await runInPlan(agent);
    expect(sentError(model, 1)).toBe(
      'Tool "request_spawn_workflow" failed: No workflow is registered as "summarize". Registered workflows: "word-count", "translate".',
    );
    expect(sentAnswer(model, 2).result).toEqual({ words: 2 });
    expect(runningNodes(workflow.node)).toEqual([]);
  });

  it('validates the input against a registered schema before creating anything', async () => {
    const model = new ScriptedModel([
      toolUse('request_spawn_workflow', { name: 'count', input: { text: 42 } }),
      toolUse('request_spawn_workflow', { name: 'count', input: { text: 'one two' } }),
      json({ answer: 'two words' }),
    ]);
    let created = 0;
    const tools = introspectionTools({
      workflows: {
        count: defineSpawnableWorkflow({
          description: 'Counts words.',
          input: z.object({ text: z.string() }),
          // Typed from the schema: only a valid input gets here.
          create: ({ text }) => {
            created += 1;
            return wordCount({ text: text.toUpperCase() });
          },
        }),
      },
    });
    const agent = createAgent({ name: 'planner', client: model.client(), tools });
    await runInPlan(agent);
    expect(sentError(model, 1)).toMatch(/Invalid input for workflow "count": text: /);
    expect(sentAnswer(model, 2).result).toEqual({ words: 2 });
    expect(created).toBe(1);
  });

  it('a spawned workflow that fails: is_error with its message; its node failed, nothing left running', async () => {
    const model = new ScriptedModel([toolUse('request_spawn_workflow', { name: 'flaky' }), json({ answer: 'it failed' })]);
    const flaky = () => createWorkflow({ name: 'flaky' }, (ctx) => ctx.step('boom', () => Promise.reject(new Error('disk full'))));
    const agent = createAgent({ name: 'planner', client: model.client(), tools: introspectionTools({ workflows: { flaky } }) });
    const { workflow, outcome, call } = await runInPlan(agent);
    expect(outcome.ok).toBe(true);
    expect(sentError(model, 1)).toMatch(/Workflow "flaky" \(w-[^)]+\) failed: .*disk full/);
    const spawned = onlyChild(onlyChild(call, 'toolCall'), 'workflow');
    expect(spawned.status).toBe('failed');
    expect(runningNodes(workflow.node)).toEqual([]);
  });

  it('mounts a `detached: true` workflow under the tool node too, and refuses one that belongs elsewhere', async () => {
    const owner = createWorkflow({ name: 'owner' }, () => 1);
    const model = new ScriptedModel([
      toolUse('request_spawn_workflow', { name: 'loner' }),
      toolUse('request_spawn_workflow', { name: 'taken' }),
      json({ answer: 'ok' }),
    ]);
    const stolen = createWorkflow({ name: 'taken' }, () => 'x');
    owner.attachChild(stolen);
    const tools = introspectionTools({
      workflows: {
        loner: () => createWorkflow({ name: 'loner', detached: true }, () => 'alone'),
        taken: () => stolen,
      },
    });
    const agent = createAgent({ name: 'planner', client: model.client(), tools });
    const { workflow, call } = await runInPlan(agent);
    expect(sentAnswer(model, 1).result).toBe('alone');
    const [first] = call.children;
    expect(kindsOf(first?.children ?? [])).toEqual(['workflow:loner']);
    expect(sentError(model, 2)).toMatch(/returned workflow "taken" \([^)]+\), which already belongs to "owner"/);
    expect(runningNodes(workflow.node)).toEqual([]);
  });
});

describe('request_spawn_agent', () => {
  it('asks the registered agent with its schema; the call mounts under the tool node', async () => {
    const researcherModel = new ScriptedModel([json({ facts: ['Tides follow the moon.', 'Two highs a day.'] })]);
    const researcher = createAgent({ name: 'researcher', client: researcherModel.client() });
    const model = new ScriptedModel([
      toolUse('request_spawn_agent', { agent: 'researcher', user: 'Two facts about tides', data: { audience: 'kids' } }),
      json({ answer: 'tides: moon, twice a day' }),
    ]);
    const tools = introspectionTools({
      agents: { researcher: { agent: researcher, responseFormat: z.object({ facts: z.array(z.string()) }), description: 'Finds facts.' } },
    });
    const agent = createAgent({ name: 'planner', client: model.client(), tools });
    const { workflow, recording, call } = await runInPlan(agent);

    const tool = onlyChild(call, 'toolCall');
    const spawned = onlyChild(tool, 'agentPrompt');
    expect(spawned.name).toBe('researcher: Two facts about tides');
    expect(spawned.status).toBe('completed');
    expect(sentAnswer(model, 1)).toEqual({
      agent: 'researcher',
      nodeId: spawned.id,
      mountedUnder: tool.id,
      spawnDepth: 1,
      answer: { facts: ['Tides follow the moon.', 'Two highs a day.'] },
      turns: 1,
    });
    // The spawned call was sent the user message with its data, and the registered schema.
    const sent = researcherModel.requests[0];
    expect(sent?.firstUserText).toContain('Two facts about tides');
    expect(sent?.firstUserText).toContain('"audience": "kids"');
    expect(JSON.stringify(sent?.body.output_config)).toContain('facts');
    expect(recording.events).toContainEqual(expect.objectContaining({ type: 'agentPromptEnd', agentName: 'researcher', nodeId: spawned.id }));
    expect(runningNodes(workflow.node)).toEqual([]);
  });

  it('an unknown agent: is_error listing the registered agents', async () => {
    const model = new ScriptedModel([toolUse('request_spawn_agent', { agent: 'writer', user: 'hi' }), json({ answer: 'no' })]);
    const researcher = createAgent({ name: 'researcher', client: new ScriptedModel([]).client() });
    const agent = createAgent({ name: 'planner', client: model.client(), tools: introspectionTools({ agents: { researcher } }) });
    await runInPlan(agent);
    expect(sentError(model, 1)).toMatch(/No agent is registered as "writer"\. Registered agents: "researcher"\./);
  });
});

describe('spawn limits', () => {
  it('maxDepth: a self-spawning agent is stopped at the limit with an is_error naming it; nothing left running', async () => {
    const model = new ScriptedModel([
      toolUse('request_spawn_agent', { agent: 'self', user: 'level 1' }),
      toolUse('request_spawn_agent', { agent: 'self', user: 'level 2' }),
      toolUse('request_spawn_agent', { agent: 'self', user: 'level 3' }),
      json({ answer: 'level 2 stops here' }),
      json({ answer: 'level 1 done' }),
      json({ answer: 'all done' }),
    ]);
    // The registry is read when the tool runs, so it can name the agent that is given the tools.
    const agents: Record<string, Agent> = {};
    const recursive = createAgent({
      name: 'recursive',
      client: model.client(),
      tools: introspectionTools({ agents: agents as AgentRegistry, limits: { maxDepth: 2 } }),
    });
    agents.self = recursive;
    const { workflow, outcome } = await runInPlan(recursive);
    expect(outcome).toEqual({ ok: true, value: { answer: 'all done' } });

    const refusal = sentError(model, 3);
    expect(refusal).toMatch(/limit maxDepth \(2\)/);
    expect(refusal).toContain('already 2 spawns deep');
    expect(field(sentAnswer(model, 4), 'answer')).toEqual({ answer: 'level 2 stops here' });
    expect(sentAnswer(model, 5)).toMatchObject({ spawnDepth: 1, answer: { answer: 'level 1 done' } });
    // Two nested spawned calls, each under its tool node; the refused third created nothing.
    const prompts = allNodes(workflow.node).filter((node) => node.kind === 'agentPrompt');
    expect(prompts.map((node) => node.name)).toEqual(['recursive: Plan the work', 'recursive: level 1', 'recursive: level 2']);
    expect(runningNodes(workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('maxDepth counts spawned workflows and agents alike', async () => {
    const innerModel = new ScriptedModel([toolUse('request_spawn_workflow', { name: 'word-count', input: { text: 'x' } }), json({ answer: 'refused' })]);
    const inner = createAgent({
      name: 'inner',
      client: innerModel.client(),
      tools: introspectionTools({ workflows: { 'word-count': wordCount }, limits: { maxDepth: 1 } }),
    });
    const viaWorkflow = () => createWorkflow({ name: 'delegate' }, (ctx) => ctx.step('ask inner', () => inner.prompt(ask('Count x'))));
    const model = new ScriptedModel([toolUse('request_spawn_workflow', { name: 'delegate' }), json({ answer: 'ok' })]);
    const outer = createAgent({ name: 'outer', client: model.client(), tools: introspectionTools({ workflows: { delegate: viaWorkflow } }) });
    const { workflow } = await runInPlan(outer);
    expect(sentError(innerModel, 1)).toMatch(/limit maxDepth \(1\).*already 1 spawn deep/);
    expect(sentAnswer(model, 1).result).toEqual({ answer: 'refused' });
    expect(runningNodes(workflow.node)).toEqual([]);
  });

  it('maxSpawnsPerRun: the spawn past the count is is_error naming the limit; a new run gets a fresh budget', async () => {
    const spawnThree = toolUse([
      { name: 'request_spawn_workflow', input: { name: 'word-count', input: { text: 'a' } } },
      { name: 'request_spawn_workflow', input: { name: 'word-count', input: { text: 'a b' } } },
      { name: 'request_spawn_workflow', input: { name: 'word-count', input: { text: 'a b c' } } },
    ]);
    const model = new ScriptedModel([spawnThree, json({ answer: 'two of three' }), spawnThree, json({ answer: 'again' })]);
    const tools = introspectionTools({ workflows: { 'word-count': wordCount }, limits: { maxSpawnsPerRun: 2 } });
    const agent = createAgent({ name: 'planner', client: model.client(), tools });
    const workflow = createWorkflow({ name: 'root', clock: new FakeClock({ tick: 1 }) }, (ctx) => ctx.step('plan', () => agent.prompt(ask('Spawn three'))));

    await workflow.run();
    const results = sentResults(model, 1);
    expect(results.map((r) => r.is_error)).toEqual([false, false, true]);
    expect(results[2]?.content).toMatch(/limit maxSpawnsPerRun \(2\): this run of "root" has already spawned 2 workflows\/agents/);
    const spawned = allNodes(workflow.node).filter((node) => node.kind === 'workflow' && node.name === 'word-count');
    expect(spawned).toHaveLength(2);
    expect(runningNodes(workflow.node)).toEqual([]);

    await workflow.run();
    expect(sentResults(model, 3).map((r) => r.is_error)).toEqual([false, false, true]);
    model.assertComplete();
  });

  it('limits.maxDepth 0 forbids spawning at all', async () => {
    const model = new ScriptedModel([toolUse('request_spawn_workflow', { name: 'word-count' }), json({ answer: 'no' })]);
    const tools = introspectionTools({ workflows: { 'word-count': wordCount }, limits: { maxDepth: 0 } });
    const agent = createAgent({ name: 'planner', client: model.client(), tools });
    const { call } = await runInPlan(agent);
    expect(sentError(model, 1)).toMatch(/limit maxDepth \(0\)/);
    expect(onlyChild(call, 'toolCall').children).toEqual([]);
  });
});
