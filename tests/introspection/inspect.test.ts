import { describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow, UsageError, type Agent } from 'groundswell';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { INTROSPECTION_TOOL_NAMES, introspectionTools } from '../../src/introspection/introspection-tools.js';
import { Answer, onlyChild, runningNodes, toolNamesOf } from '../support/agent-helpers.js';
import { must } from '../support/core-helpers.js';
import { deferred } from '../support/deferred.js';
import { FakeClock } from '../support/fake-clock.js';
import { child, field, sentAnswer, sentError } from './helpers.js';

const ask = (user = 'Where am I?') => createPrompt({ user, responseFormat: Answer });

/** An agent with the introspection tools, answering from `script`. */
function scout(script: ConstructorParameters<typeof ScriptedModel>[0]): { model: ScriptedModel; agent: Agent } {
  const model = new ScriptedModel(script);
  return { model, agent: createAgent({ name: 'scout', client: model.client(), tools: introspectionTools() }) };
}

describe('introspectionTools()', () => {
  it('is one line to hand to an agent: the read-only tools, with zod input schemas the model sees', async () => {
    const { model, agent } = scout([json({ answer: 'ok' })]);
    await agent.prompt(ask());
    const body = must(model.requests[0], 'request').body;
    expect(toolNamesOf(body)).toEqual(INTROSPECTION_TOOL_NAMES.slice(0, 6));
    const siblings = body.tools?.find((tool) => 'name' in tool && tool.name === 'list_siblings_children');
    expect(siblings).toMatchObject({ input_schema: { type: 'object', properties: { nodeId: { type: 'string' } } } });
    expect(JSON.stringify(body.tools)).not.toContain('request_spawn');
  });

  it('offers the spawn tools only with registries, listing the registered names', async () => {
    const other = createAgent({ name: 'other', client: new ScriptedModel([]).client() });
    const tools = introspectionTools({
      workflows: { summarise: { create: () => createWorkflow('s', () => 1), description: 'Summarises a text.' } },
      agents: { researcher: other },
    });
    expect(tools.map((tool) => tool.name)).toEqual([...INTROSPECTION_TOOL_NAMES]);
    expect(tools.find((tool) => tool.name === 'request_spawn_workflow')?.description).toContain('- summarise: Summarises a text.');
    expect(tools.find((tool) => tool.name === 'request_spawn_agent')?.description).toContain('- researcher');
  });

  it('refuses bad options with a UsageError', () => {
    expect(() => introspectionTools({ maxChars: 10 })).toThrow(UsageError);
    expect(() => introspectionTools({ maxChars: 1.5 * 1000 + 0.5 })).toThrow(/maxChars/);
    expect(() => introspectionTools({ limits: { maxDepth: -1 } })).toThrow(/limits\.maxDepth/);
    expect(() => introspectionTools({ limits: { maxSpawnsPerRun: 2.5 } })).toThrow(/limits\.maxSpawnsPerRun/);
  });
});

describe('inspect_current_node', () => {
  it('describes the calling agentPrompt node, the step and workflow it runs in, and the root', async () => {
    const { model, agent } = scout([toolUse('inspect_current_node', {}), json({ answer: 'in look' })]);
    const clock = new FakeClock({ tick: 1 });
    const workflow = createWorkflow({ name: 'mission-control', clock, mission: 'Ship v2', goal: 'Release notes' }, async (ctx) => {
      await ctx.step('prepare', () => 1);
      return ctx.step('look', () => agent.prompt(ask()));
    });
    await workflow.run();

    const answer = sentAnswer(model, 1);
    const step = child(workflow.node, 'step', 'look');
    const call = onlyChild(step, 'agentPrompt');
    const tool = onlyChild(call, 'toolCall');
    expect(answer.call).toMatchObject({
      id: call.id,
      kind: 'agentPrompt',
      name: call.name,
      status: 'running',
      workflowId: workflow.id,
      agentName: 'scout',
      children: 1,
    });
    expect(field(answer, 'call', 'elapsedMs')).toEqual(expect.any(Number));
    expect(answer.toolCallId).toBe(tool.id);
    expect(answer.step).toMatchObject({ id: step.id, kind: 'step', name: 'look', status: 'running' });
    // The step is the call's parent, so no separate `parent`.
    expect(answer).not.toHaveProperty('parent');
    expect(field(answer, 'call', 'startedAt')).toBe(new Date(must(call.startTime, 'start')).toISOString());
    expect(answer.workflow).toMatchObject({
      id: workflow.id,
      kind: 'workflow',
      name: 'mission-control',
      status: 'running',
      mission: 'Ship v2',
      goal: 'Release notes',
      parentWorkflowId: null,
      state: null,
      children: 2,
    });
    expect(answer.root).toEqual({ id: workflow.id, name: 'mission-control', status: 'running' });
    expect(answer.depth).toBe(2);
    expect(answer.spawnDepth).toBe(0);
    expect(runningNodes(workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('a call made in a workflow body (no step): step null, parent the workflow node', async () => {
    const { model, agent } = scout([toolUse('inspect_current_node', {}), json({ answer: 'in the body' })]);
    const workflow = createWorkflow({ name: 'bare' }, () => agent.prompt(ask()));
    await workflow.run();
    const answer = sentAnswer(model, 1);
    expect(answer.step).toBeNull();
    expect(answer.parent).toMatchObject({ id: workflow.id, kind: 'workflow' });
    expect(answer.depth).toBe(1);
  });

  it('outside any workflow: an is_error result saying so, and the call still completes', async () => {
    const { model, agent } = scout([toolUse('inspect_current_node', {}), json({ answer: 'no tree' })]);
    await expect(agent.prompt(ask())).resolves.toEqual({ answer: 'no tree' });
    expect(sentError(model, 1)).toMatch(/inspect_current_node can only be used by an agent called inside a running workflow/);
  });
});

describe('read_ancestor_chain', () => {
  it('lists every level from the call up to the root, nearest first, with each workflow’s goal fields', async () => {
    const { model, agent } = scout([toolUse('read_ancestor_chain', {}), json({ answer: 'deep' })]);
    const inner = createWorkflow({ name: 'inner', goal: 'Check the links' }, (ctx) => ctx.step('ask', () => agent.prompt(ask())));
    const outer = createWorkflow({ name: 'outer', mission: 'Keep docs healthy', project: 'Docs' }, (ctx) =>
      ctx.step('delegate', () => ctx.spawnWorkflow(inner)),
    );
    await outer.run();

    const answer = sentAnswer(model, 1);
    const chain = answer.chain as Array<Record<string, unknown>>;
    expect(chain.map((level) => [level.kind, level.name])).toEqual([
      ['agentPrompt', 'scout: Where am I?'],
      ['step', 'ask'],
      ['workflow', 'inner'],
      ['step', 'delegate'],
      ['workflow', 'outer'],
    ]);
    expect(answer.levels).toBe(5);
    expect(chain[2]).toEqual({ id: inner.id, name: 'inner', kind: 'workflow', status: 'running', goal: 'Check the links' });
    expect(chain[4]).toEqual({
      id: outer.id,
      name: 'outer',
      kind: 'workflow',
      status: 'running',
      mission: 'Keep docs healthy',
      project: 'Docs',
    });
    // Only workflows carry goal fields.
    expect(Object.keys(chain[1] ?? {})).toEqual(['id', 'name', 'kind', 'status']);
  });
});

describe('list_siblings_children', () => {
  it('defaults to the step the call runs in: its finished sibling and its child, the call', async () => {
    const { model, agent } = scout([toolUse('list_siblings_children', {}), json({ answer: 'ok' })]);
    const workflow = createWorkflow({ name: 'wf' }, async (ctx) => {
      await ctx.step('prepare', () => 1);
      return ctx.step('look', () => agent.prompt(ask()));
    });
    await workflow.run();

    const answer = sentAnswer(model, 1);
    const [prepare, look] = workflow.node.children;
    expect(answer.node).toMatchObject({ id: look?.id, name: 'look', kind: 'step' });
    expect(answer.parent).toMatchObject({ id: workflow.id, kind: 'workflow' });
    expect(answer.siblings).toEqual([expect.objectContaining({ id: prepare?.id, name: 'prepare', status: 'completed' })]);
    expect(answer.children).toEqual([expect.objectContaining({ kind: 'agentPrompt', status: 'running' })]);
    expect(answer).toMatchObject({ siblingsTotal: 1, childrenTotal: 1, prunedChildren: 0 });
  });

  it('takes any node id of the caller’s tree, e.g. the root', async () => {
    const model = new ScriptedModel([]);
    const agent = createAgent({ name: 'scout', client: model.client(), tools: introspectionTools() });
    const workflow = createWorkflow({ name: 'wf' }, async (ctx) => {
      await ctx.step('a', () => 1);
      model.push(toolUse('list_siblings_children', { nodeId: ctx.workflowId }), json({ answer: 'ok' }));
      return ctx.step('b', () => agent.prompt(ask()));
    });
    await workflow.run();
    const answer = sentAnswer(model, 1);
    expect(answer.node).toMatchObject({ id: workflow.id, kind: 'workflow' });
    expect(answer.parent).toBeNull();
    expect(answer.siblings).toEqual([]);
    expect((answer.children as Array<{ name: string }>).map((c) => c.name)).toEqual(['a', 'b']);
  });

  it('an id that does not exist, or lies in another tree: is_error, and nothing is left running', async () => {
    const elsewhere = createWorkflow({ name: 'elsewhere' }, (ctx) => ctx.step('private', () => 'x'));
    await elsewhere.run();
    const foreignStep = must(elsewhere.node.children[0], 'foreign step');

    const { model, agent } = scout([
      toolUse('list_siblings_children', { nodeId: 's-0000-nope' }),
      toolUse('list_siblings_children', { nodeId: foreignStep.id }),
      json({ answer: 'could not look' }),
    ]);
    const workflow = createWorkflow({ name: 'wf' }, (ctx) => ctx.step('look', () => agent.prompt(ask())));
    await expect(workflow.run()).resolves.toEqual({ answer: 'could not look' });

    expect(sentError(model, 1)).toMatch(/No node with id "s-0000-nope" in this run's tree \(root "wf"/);
    const foreign = sentError(model, 2);
    expect(foreign).toContain(`No node with id "${foreignStep.id}"`);
    expect(foreign).not.toContain('private');
    const call = onlyChild(child(workflow.node, 'step', 'look'), 'agentPrompt');
    expect(call.children.map((c) => c.status)).toEqual(['failed', 'failed']);
    expect(runningNodes(workflow.node)).toEqual([]);
    model.assertComplete();
  });
});

describe('list_mount_points', () => {
  it('lists the running workflow, step and task nodes of the whole run, and where spawns from this call mount', async () => {
    const { model, agent } = scout([toolUse('list_mount_points', {}), json({ answer: 'ok' })]);
    const release = deferred();
    const workflow = createWorkflow({ name: 'wf' }, async (ctx) => {
      await ctx.step('done-already', () => 1);
      await Promise.all([
        ctx.step('background', () => release.promise),
        ctx.step('look', async () => {
          try {
            return await agent.prompt(ask());
          } finally {
            release.resolve();
          }
        }),
      ]);
    });
    await workflow.run();

    const answer = sentAnswer(model, 1);
    const points = answer.mountPoints as Array<{ name: string; kind: string; status: string; depth: number }>;
    expect(points.map((p) => [p.kind, p.name, p.depth])).toEqual([
      ['workflow', 'wf', 0],
      ['step', 'background', 1],
      ['step', 'look', 1],
    ]);
    expect(points.every((p) => p.status === 'running')).toBe(true);
    const tool = onlyChild(onlyChild(child(workflow.node, 'step', 'look'), 'agentPrompt'), 'toolCall');
    expect(answer.spawnsMountUnder).toBe(tool.id);
    expect(answer.total).toBe(3);
  });
});
