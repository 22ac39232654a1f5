import { describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow } from 'groundswell';
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
