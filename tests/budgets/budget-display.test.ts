import { describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow, progressDisplay } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { ProgressState } from '../../src/progress/progress-state.js';
import { usageLine } from '../../src/progress/progress-render.js';
import { Answer } from '../support/agent-helpers.js';
import { record } from '../support/events.js';
import { agentModel } from '../support/model-path.js';

describe('the progress display', () => {
  it('shows the latest budget refusal with spent, reserved and limit in its usage line', async () => {
    const model = new ScriptedModel([json({ answer: 'one' })]);
    const agent = createAgent({ name: 'worker', ...(await agentModel(model)) });
    const ask = (user: string) => createPrompt({ user, responseFormat: Answer });
    const workflow = createWorkflow({ name: 'shown', budget: { modelRequests: 1 } }, (ctx) =>
      ctx.step('s', async () => [await agent.prompt(ask('one')), await agent.prompt(ask('two'))]),
    );
    const recording = record(workflow);
    await workflow.run().catch(() => undefined);
    const state = new ProgressState();
    for (const event of recording.events) state.apply(event);
    expect(usageLine(state)).toMatch(/ · budget modelRequests exceeded: 1 spent \+ 0 reserved of 1$/);
  });
});

describe('the progress display with a budget on the root', () => {
  it("shows the root budget's limits with what is spent and reserved in every summary, and the last one after the run", async () => {
    const writes: string[] = [];
    let tick: (() => void) | undefined;
    const progress = progressDisplay({ stream: { isTTY: false, write: (text: string) => writes.push(text) > 0 }, timer: (fn) => ((tick = fn), () => (tick = undefined)) });
    const model = new ScriptedModel(() => json({ answer: 'one' }));
    const agent = createAgent({ name: 'worker', ...(await agentModel(model)), maxTokens: 100 });
    const ask = (user: string) => createPrompt({ user, responseFormat: Answer });
    let during = '';
    const workflow = createWorkflow({ name: 'capped', budget: { modelRequests: 3 } }, async (ctx) => {
      await ctx.step('one', () => agent.prompt(ask('one')));
      tick?.();
      during = writes.at(-1) ?? '';
      await ctx.step('two', () => agent.prompt(ask('two')));
    });
    workflow.addObserver(progress);
    await workflow.run();
    expect(during).toContain('budget modelRequests 1 spent + 0 reserved of 3');
    expect(writes.at(-1)).toContain('budget modelRequests 2 spent + 0 reserved of 3');
  });

  it('shows no budget part for a run without one', async () => {
    const writes: string[] = [];
    const progress = progressDisplay({ stream: { isTTY: false, write: (text: string) => writes.push(text) > 0 }, timer: () => () => undefined });
    const model = new ScriptedModel(() => json({ answer: 'one' }));
    const agent = createAgent({ name: 'worker', ...(await agentModel(model)) });
    const workflow = createWorkflow({ name: 'free' }, (ctx) => ctx.step('one', () => agent.prompt(createPrompt({ user: 'one', responseFormat: Answer }))));
    workflow.addObserver(progress);
    await workflow.run();
    expect(writes.join('')).not.toContain('budget');
  });
});
