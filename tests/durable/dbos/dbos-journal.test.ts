import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, UsageError, type WorkflowEvent } from 'groundswell';
import { dbosChildren, dbosWorkflows } from 'groundswell/dbos';
import { JournalRunStore } from 'groundswell/durable';
import { json, ScriptedModel } from 'groundswell/testing';
import { fakeDbos } from './support/fake-dbos.js';
import { STALL_MS } from './support/progress.js';

const Answer = z.object({ n: z.number() });

// In-process only, nothing to watch for progress: the stall window bounds each whole test instead of
// vitest's 5 s default, which a loaded machine overran while loading the libraries on first use.
describe('groundswell/dbos journal (in-process DBOS stand-in)', { timeout: STALL_MS }, () => {
  it('makes each top-level step and agent call a DBOS step; work inside a step is part of it', async () => {
    const dbos = fakeDbos();
    const model = new ScriptedModel([json({ n: 1 }), json({ n: 2 })]);
    const agent = createAgent({ name: 'asker', client: model.client({ maxRetries: 0 }) });
    const flows = dbosWorkflows(dbos, {
      Plain: () =>
        createWorkflow({ name: 'Plain' }, async (ctx) => {
          const outer = await ctx.step('outer', async () => (await ctx.step('inner', async () => 1)) + (await agent.prompt(createPrompt({ user: 'in a step', responseFormat: Answer }))).n);
          const direct = await agent.prompt(createPrompt({ user: 'in the body', responseFormat: Answer }));
          return outer + direct.n;
        }),
    }, { name: 'journal-test-1' });
    expect(await flows.run('Plain', undefined as never)).toBe(4);
    expect(dbos.steps).toEqual(['step:outer', 'agent:asker']);
    model.assertComplete();
  });

  it('serves what DBOS recorded: the step and the call are not run again and show as replayed', async () => {
    const dbos = fakeDbos();
    dbos.recorded.set('step:first', 10);
    dbos.recorded.set('agent:asker', { answer: { n: 5 }, usage: { inputTokens: 3, outputTokens: 2 }, model: 'scripted', toolCalls: [] });
    const model = new ScriptedModel([]);
    const agent = createAgent({ name: 'asker', client: model.client({ maxRetries: 0 }) });
    let ran = 0;
    const events: WorkflowEvent[] = [];
    const flows = dbosWorkflows(dbos, {
      Recovered: () =>
        createWorkflow({ name: 'Recovered' }, async (ctx) => {
          const first = await ctx.step('first', async () => {
            ran += 1;
            return 1;
          });
          const answer = await agent.prompt(createPrompt({ user: 'recorded', responseFormat: Answer }));
          return first + answer.n;
        }),
    }, { name: 'journal-test-2' });
    const result = await flows.run('Recovered', undefined as never, { onWorkflow: (wf) => wf.addObserver({ onEvent: (event) => events.push(event) }) });
    expect(result).toBe(15);
    expect(ran).toBe(0);
    expect(model.requests).toHaveLength(0);
    expect(events.find((event) => event.type === 'stepReplayed')).toMatchObject({ name: 'first', status: 'completed' });
    expect(events.find((event) => event.type === 'agentPromptEnd')).toMatchObject({ replayed: true });
  });

  it('refuses a `durable` option, an unknown workflow, waitFor, and dbosChildren outside a DBOS run (UsageError)', async () => {
    const dbos = fakeDbos();
    const store = new JournalRunStore({ dir: '/nonexistent-never-written' });
    const flows = dbosWorkflows(dbos, {
      Durable: () => createWorkflow({ name: 'Durable', durable: { store } }, async () => 1),
      Waits: () => createWorkflow({ name: 'Waits' }, (ctx) => ctx.waitFor('approval', Answer)),
    }, { name: 'journal-test-3' });
    await expect(flows.run('Durable', undefined as never)).rejects.toThrow(UsageError);
    await expect(flows.run('Durable', undefined as never)).rejects.toThrow(/durable.*DBOS's system database/);
    await expect(flows.run('Nope' as 'Durable', undefined as never)).rejects.toThrow(/no workflow "Nope"/);
    await expect(flows.run('Waits', undefined as never)).rejects.toThrow(/waitFor\("approval"\) is not available in a DBOS run/);
    const outside = createWorkflow({ name: 'Outside' }, () => dbosChildren({ name: 'q' }, 'Durable', [1]));
    await expect(outside.run()).rejects.toThrow(/must be called inside a workflow that dbosWorkflows/);
  });
});
