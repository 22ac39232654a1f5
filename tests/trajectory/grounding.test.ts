import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, type TrajectoryCheckpointEvent, type WorkflowEvent } from 'groundswell';
import { ScriptedModel, json, malformedJson, toolUse } from 'groundswell/testing';
import { agentModel } from '../support/model-path.js';

const Done = z.object({ done: z.boolean() });

function checkpoints(events: readonly WorkflowEvent[]): TrajectoryCheckpointEvent[] {
  return events.filter((e): e is TrajectoryCheckpointEvent => e.type === 'trajectoryCheckpoint');
}

function systemText(body: { system?: unknown }): string {
  const system = body.system;
  if (typeof system === 'string') return system;
  return Array.isArray(system) ? system.map((block: { text: string }) => block.text).join('\n') : '';
}

async function run(model: ScriptedModel, grounding: 'initial' | 'adaptive' | 'off') {
  const agent = createAgent({
    name: 'worker',
    ...(await agentModel(model)),
    trajectory: { checkpoint: 'adaptive', grounding },
  });
  const events: WorkflowEvent[] = [];
  const wf = createWorkflow({ name: 'job', goal: 'Finish the job' }, (ctx) =>
    ctx.step('work', () => agent.prompt(createPrompt({ user: 'Do the job', responseFormat: Done }))),
  );
  wf.addObserver({ onEvent: (e) => events.push(e) });
  const value = await wf.run();
  return { value, events };
}

describe('model grounding pass', () => {
  it('initial: a tool-less request before the first main request, whose cited assessment lands in the checkpoint', async () => {
    const model = new ScriptedModel([
      json({ situationAssessment: 'Nothing is done yet; the job is the whole task.', evidenceRefs: ['[task]'] }),
      json({ done: true }),
    ]);
    const { value, events } = await run(model, 'initial');
    expect(value).toEqual({ done: true });
    const [grounding, main] = model.requests;
    expect(grounding?.body.tools).toBeUndefined();
    expect(systemText(grounding?.body ?? {})).toContain('Cite the evidence labels');
    expect(systemText(main?.body ?? {})).toContain('Reasoned situation: Nothing is done yet');
    const [first] = checkpoints(events);
    expect(first?.checkpoint.groundingSource).toBe('model');
    expect(first?.checkpoint.groundingEvidenceRefs).toEqual(['[task]']);
    model.assertComplete();
  });

  it.each([
    ['cites no label', json({ situationAssessment: 'All fine.', evidenceRefs: [] })],
    ['cites a label never supplied', json({ situationAssessment: 'See turn 9.', evidenceRefs: ['[turn 9/tool_result]'] })],
    ['is not JSON', malformedJson()],
  ])('an answer that %s falls back to the deterministic assessment, labelled so, and the run goes on', async (_label, step) => {
    const model = new ScriptedModel([step, json({ done: true })]);
    const { value, events } = await run(model, 'initial');
    expect(value).toEqual({ done: true });
    const [first] = checkpoints(events);
    expect(first?.checkpoint.groundingSource).toBe('deterministic');
    expect(first?.checkpoint.situationAssessment).toBeUndefined();
    expect(systemText(model.requests[1]?.body ?? {})).not.toContain('Reasoned situation');
    model.assertComplete();
  });

  it('off: no grounding request; the first request carries no checkpoint', async () => {
    const model = new ScriptedModel([json({ done: true })]);
    await run(model, 'off');
    expect(model.requests).toHaveLength(1);
    expect(systemText(model.requests[0]?.body ?? {})).not.toContain('[TRAJECTORY CHECKPOINT]');
    model.assertComplete();
  });

  it('adaptive: grounds again after a material failure, not after an ordinary successful read', async () => {
    const read = defineTool({ name: 'read_file', description: 'Read', effect: 'read', target: (i) => i.path, input: z.object({ path: z.string() }), execute: () => 'text' });
    const write = defineTool({
      name: 'write_file',
      description: 'Write',
      effect: 'mutate',
      target: (i) => i.path,
      input: z.object({ path: z.string() }),
      execute: () => {
        throw new Error('refused');
      },
    });
    const ground = (label: string) => json({ situationAssessment: `Grounded on ${label}.`, evidenceRefs: [label] });
    const model = new ScriptedModel([
      ground('[task]'),
      toolUse('read_file', { path: 'a.txt' }),
      toolUse('write_file', { path: 'a.txt' }),
      ground('[turn 2/tool_failure]'),
      json({ done: true }),
    ]);
    const agent = createAgent({ name: 'worker', ...(await agentModel(model)), tools: [read, write], trajectory: { checkpoint: 'adaptive', grounding: 'adaptive' } });
    const wf = createWorkflow({ name: 'job' }, (ctx) => ctx.step('work', () => agent.prompt(createPrompt({ user: 'Edit a.txt', responseFormat: Done }))));
    await wf.run();
    const kinds = model.requests.map((r) => (r.body.tools ? 'main' : 'grounding'));
    expect(kinds).toEqual(['grounding', 'main', 'main', 'grounding', 'main']);
    model.assertComplete();
  });
});

describe('child agents', () => {
  it('an agent called from a tool of another run gets a scoped parent slice and runs no grounding pass of its own', async () => {
    const child = new ScriptedModel([json({ answer: 'looked it up' })]);
    const helper = createAgent({ name: 'helper', ...(await agentModel(child)), trajectory: { checkpoint: 'adaptive' } });
    const ask = defineTool({
      name: 'ask_helper',
      description: 'Delegate a lookup',
      input: z.object({ q: z.string() }),
      execute: ({ q }) => helper.prompt(createPrompt({ user: `Look up ${q}`, responseFormat: z.object({ answer: z.string() }) })),
    });
    const parent = new ScriptedModel([
      json({ situationAssessment: 'Start by delegating.', evidenceRefs: ['[task]'] }),
      toolUse('ask_helper', { q: 'prices' }),
      json({ done: true }),
    ]);
    const lead = createAgent({ name: 'lead', ...(await agentModel(parent)), tools: [ask], trajectory: { checkpoint: 'adaptive', grounding: 'initial' } });
    const wf = createWorkflow({ name: 'job', goal: 'Publish the price list' }, (ctx) =>
      ctx.step('work', () => lead.prompt(createPrompt({ user: 'Publish prices', responseFormat: Done }))),
    );
    await wf.run();
    expect(child.requests).toHaveLength(1);
    const slice = systemText(child.requests[0]?.body ?? {});
    expect(slice).toContain('orientation only');
    expect(slice).toContain('Parent goal: Publish the price list');
    expect(slice).toContain('Delegated scope: Look up prices');
    expect(slice).toContain('Return with evidence:');
    parent.assertComplete();
    child.assertComplete();
  });
});
