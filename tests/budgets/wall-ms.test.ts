import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { BudgetExceededError, createAgent, createPrompt, createWorkflow, WorkflowCancelledError, WorkflowError } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { Answer } from '../support/agent-helpers.js';
import { eventsOfType, record } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';
import { agentModel } from '../support/model-path.js';
import { budgetErrorIn } from './budget-helpers.js';

/** Waits (turn by turn, never on a wall-clock threshold) until `ready()` holds. */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await nextTurn();
}

/** A promise that only the signal ends, as cancellable work does. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
}

describe('wallMs', () => {
  it('on a workflow: cancels the workflow when the time runs out; the run settles with the budget as the reason', async () => {
    const clock = new FakeClock({ autoAdvance: false });
    const workflow = createWorkflow({ name: 'slow', clock, budget: { wallMs: 1_000 } }, (ctx) => ctx.step('wait', () => untilAborted(ctx.signal)));
    const recording = record(workflow);
    const settled = workflow.run().catch((e: unknown) => e);
    await until(() => clock.pendingSleeps === 1);
    clock.advance(1_000);
    const error = await settled;
    expect(error).toBeInstanceOf(WorkflowCancelledError);
    expect(budgetErrorIn(error)).toMatchObject({ budgetPath: 'slow', dimension: 'wallMs', limit: 1_000, spent: 1_000 });
    expect(workflow.status).toBe('cancelled');
    expect(eventsOfType(recording.events, 'budgetExceeded')).toMatchObject([{ dimension: 'wallMs', limit: 1_000 }]);
  });

  it('on a step: the step fails with BudgetExceededError at once, though its body never settles; the workflow is not cancelled', async () => {
    const clock = new FakeClock({ autoAdvance: false });
    const workflow = createWorkflow({ name: 'w', clock }, (ctx) => ctx.step('stuck', () => new Promise<never>(() => undefined), { budget: { wallMs: 500 } }));
    const settled = workflow.run().catch((e: unknown) => e);
    await until(() => clock.pendingSleeps === 1);
    clock.advance(500);
    const error = await settled;
    expect(error).toBeInstanceOf(WorkflowError);
    expect((error as WorkflowError).cause).toBeInstanceOf(BudgetExceededError);
    expect(budgetErrorIn(error)).toMatchObject({ budgetPath: 'w / stuck', dimension: 'wallMs', limit: 500 });
    expect(workflow.isCancelled).toBe(false);
    expect(workflow.status).toBe('failed');
  });

  it('on a step: stops the agent request in flight and cancels the workflows below it', async () => {
    const clock = new FakeClock({ autoAdvance: false });
    // Answers only long after the budget ran out: the abort must end it first.
    const model = new ScriptedModel([json({ answer: 'late' }, { delayMs: 600_000 })]);
    const agent = createAgent({ name: 'slow-agent', ...(await agentModel(model)) });
    let child: ReturnType<typeof createWorkflow> | undefined;
    const workflow = createWorkflow({ name: 'w', clock }, (ctx) =>
      ctx.step(
        'both',
        () => {
          child = createWorkflow({ name: 'child' }, (c) => c.step('wait', () => untilAborted(c.signal)));
          return Promise.all([agent.prompt(createPrompt({ user: 'slow', responseFormat: Answer })), ctx.spawnWorkflow(child)]);
        },
        { budget: { wallMs: 500 } },
      ),
    );
    const recording = record(workflow);
    const settled = workflow.run().catch((e: unknown) => e);
    await until(() => clock.pendingSleeps === 1 && model.requests.length === 1);
    clock.advance(500);
    expect(budgetErrorIn(await settled)).toMatchObject({ dimension: 'wallMs' });
    await until(() => eventsOfType(recording.events, 'agentPromptEnd').length === 1 && child?.status === 'cancelled');
    const end = eventsOfType(recording.events, 'agentPromptEnd')[0];
    expect(end).toMatchObject({ status: 'failed', error: { name: 'BudgetExceededError' } });
    expect(model.requests).toHaveLength(1);
  });

  it("on an agent: its call's request in flight is stopped and the call fails with BudgetExceededError", async () => {
    const clock = new FakeClock({ autoAdvance: false });
    const model = new ScriptedModel([json({ answer: 'late' }, { delayMs: 600_000 })]);
    const agent = createAgent({ name: 'timed', ...(await agentModel(model)), budget: { wallMs: 300 } });
    const workflow = createWorkflow({ name: 'w', clock }, (ctx) => ctx.step('s', () => agent.prompt(createPrompt({ user: 'slow', responseFormat: Answer }))));
    const settled = workflow.run().catch((e: unknown) => e);
    await until(() => clock.pendingSleeps === 1 && model.requests.length === 1);
    clock.advance(300);
    const error = budgetErrorIn(await settled);
    expect(error).toMatchObject({ dimension: 'wallMs', limit: 300 });
    expect(error?.message).toContain('agent "timed"');
    expect(clock.pendingSleeps).toBe(0);
  });

  it('leaves no timer behind when the budgeted nodes end first', async () => {
    const clock = new FakeClock({ autoAdvance: false });
    const workflow = createWorkflow({ name: 'quick', clock, budget: { wallMs: 10_000 } }, (ctx) =>
      ctx.step('s', () => 'done', { budget: { wallMs: 5_000 } }),
    );
    expect(await workflow.run()).toBe('done');
    expect(clock.pendingSleeps).toBe(0);
  });
});
