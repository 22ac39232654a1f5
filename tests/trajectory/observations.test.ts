import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, type TrajectoryCheckpointEvent, type WorkflowEvent } from 'groundswell';
import { ScriptedModel, json, toolUse } from 'groundswell/testing';
import { agentModel } from '../support/model-path.js';

const Done = z.object({ done: z.boolean() });

async function lastCheckpoint(tools: Parameters<typeof createAgent>[0]['tools'], script: ConstructorParameters<typeof ScriptedModel>[0]) {
  const model = new ScriptedModel(script);
  const agent = createAgent({ name: 'lead', ...(await agentModel(model)), tools, trajectory: { checkpoint: 'shadow' } });
  const events: WorkflowEvent[] = [];
  const wf = createWorkflow({ name: 'job', goal: 'Ship it' }, (ctx) => ctx.step('go', () => agent.prompt(createPrompt({ user: 'Go', responseFormat: Done }))));
  wf.addObserver({ onEvent: (e) => events.push(e) });
  await wf.run();
  model.assertComplete();
  return events.filter((e): e is TrajectoryCheckpointEvent => e.type === 'trajectoryCheckpoint').at(-1)?.checkpoint;
}

describe('observations from the tool loop', () => {
  it('a tool that ran a child agent yields verification work, not a completion claim', async () => {
    const childModel = new ScriptedModel([json({ answer: 'all migrated' })]);
    const worker = createAgent({ name: 'worker', ...(await agentModel(childModel)) });
    const delegate = defineTool({
      name: 'delegate',
      description: 'Hand work to a worker agent',
      input: z.object({ task: z.string() }),
      execute: ({ task }) => worker.prompt(createPrompt({ user: task, responseFormat: z.object({ answer: z.string() }) })),
    });
    const checkpoint = await lastCheckpoint([delegate], [toolUse('delegate', { task: 'Migrate the users' }), json({ done: true })]);
    expect(checkpoint?.assessment).toBe('verification_due');
    expect(checkpoint?.completedWork).toEqual([]);
    expect(checkpoint?.openQuestions.join(' ')).toContain('delegate [turn 1/child_result]');
    childModel.assertComplete();
  });

  it('a verifier reporting { passed: false } as JSON does not count as a passing verification', async () => {
    const edit = defineTool({ name: 'edit', description: 'Edit', effect: 'mutate', target: () => 'app.ts', input: z.object({}), execute: () => 'edited' });
    const check = defineTool({ name: 'check', description: 'Run checks', effect: 'verify', target: () => 'app.ts', input: z.object({}), execute: () => ({ passed: false }) });
    const checkpoint = await lastCheckpoint([edit, check], [toolUse('edit', {}), toolUse('check', {}), json({ done: true })]);
    expect(checkpoint?.assessment).toBe('verification_due');
  });

  it('a verifier reporting { passed: true } after the change puts the run back on trajectory', async () => {
    const edit = defineTool({ name: 'edit', description: 'Edit', effect: 'mutate', target: () => 'app.ts', input: z.object({}), execute: () => 'edited' });
    const check = defineTool({ name: 'check', description: 'Run checks', effect: 'verify', target: () => 'app.ts', input: z.object({}), execute: () => ({ passed: true }) });
    const checkpoint = await lastCheckpoint([edit, check], [toolUse('edit', {}), toolUse('check', {}), json({ done: true })]);
    expect(checkpoint?.assessment).toBe('on_trajectory');
  });
});
