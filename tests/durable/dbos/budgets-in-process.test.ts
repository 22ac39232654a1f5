import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BudgetExceededError, createAgent, createPrompt, createWorkflow, type Workflow } from 'groundswell';
import { dbosChildren, dbosWorkflows } from 'groundswell/dbos';
import { json, ScriptedModel } from 'groundswell/testing';
import { fakeDbos } from './support/fake-dbos.js';
import { STALL_MS } from './support/progress.js';

const Answer = z.object({ n: z.number() });
const QUEUE = { name: 'q' };

/** An agent on a scripted model that answers every request, and the model (to count requests). */
function answering(): { agent: ReturnType<typeof createAgent>; model: ScriptedModel } {
  const model = new ScriptedModel(() => json({ n: 1 }));
  return { agent: createAgent({ name: 'asker', client: model.client({ maxRetries: 0 }) }), model };
}

/** The BudgetExceededError in `error`'s cause chain, if any. */
function budgetError(error: unknown): BudgetExceededError | undefined {
  for (let at = error; typeof at === 'object' && at !== null; at = (at as { cause?: unknown }).cause) if (at instanceof BudgetExceededError) return at;
  return undefined;
}

// In-process only (the DBOS stand-in runs children here): the stall window bounds each whole test.
describe('groundswell/dbos budgets (in-process DBOS stand-in)', { timeout: STALL_MS }, () => {
  it("starts a child with what the launcher's budgets have left; without a budget, with its input alone", async () => {
    const dbos = fakeDbos();
    const { agent } = answering();
    const Leaf = () => createWorkflow({ name: 'Leaf' }, async () => 1);
    const flows = dbosWorkflows(
      dbos,
      {
        Leaf,
        Budgeted: () =>
          createWorkflow({ name: 'Budgeted', budget: { modelRequests: 5, toolCalls: 4 } }, async (ctx) => {
            await agent.prompt(createPrompt({ user: 'one', responseFormat: Answer }));
            return ctx.step('fan out', () => dbosChildren(QUEUE, Leaf, [undefined as never]), { budget: { modelRequests: 3, usd: 1 } });
          }),
        Free: () => createWorkflow({ name: 'Free' }, (ctx) => ctx.step('fan out', () => dbosChildren(QUEUE, Leaf, [undefined as never]))),
      },
      { name: 'budgets-test-1' },
    );
    await flows.run('Budgeted', undefined as never, { workflowID: 'budgeted' });
    await flows.run('Free', undefined as never, { workflowID: 'free' });
    // The tightest of each limit, less what is spent: requests min(5 - 1, 3), tool calls 4, dollars 1.
    expect(dbos.started.get('budgeted/Budgeted/fan out#0/Leaf#0')).toEqual(['Leaf', undefined, true, { modelRequests: 3, toolCalls: 4, usd: 1 }]);
    expect(dbos.started.get('free/Free/fan out#0/Leaf#0')).toEqual(['Leaf', undefined, true]);
  });

  it('counts what a child spent on the budgets above it, and stops a child at the headroom, its own budget lowered to it', async () => {
    for (const own of [false, true]) {
      const dbos = fakeDbos();
      const { agent, model } = answering();
      const work = (ctx: { step: <R>(name: string, fn: () => Promise<R>) => Promise<R> }, calls: number) =>
        ctx.step('work', async () => {
          for (let i = 0; i < calls; i += 1) await agent.prompt(createPrompt({ user: `call ${i}`, responseFormat: Answer }));
          return calls;
        });
      const Worker = (input: { calls: number }) => createWorkflow({ name: 'Worker', ...(own ? { budget: { modelRequests: 50 } } : {}) }, (ctx) => work(ctx, input.calls));
      let root: Workflow<unknown> | undefined;
      const flows = dbosWorkflows(
        dbos,
        {
          Worker,
          Root: () =>
            createWorkflow({ name: 'Root', budget: { modelRequests: 5 } }, async (ctx) => {
              const first = await ctx.step('first', () => dbosChildren(QUEUE, Worker, [{ calls: 2 }]));
              const second = await ctx.step('second', () => dbosChildren(QUEUE, Worker, [{ calls: 4 }])).catch((error: unknown) => error);
              const third = await agent.prompt(createPrompt({ user: 'here', responseFormat: Answer })).catch((error: unknown) => error);
              return { first, second, third };
            }),
        },
        { name: `budgets-test-2-${String(own)}`, onWorkflow: (workflow, run) => void (run.name === 'Root' && (root = workflow)) },
      );
      const { first, second, third } = (await flows.run('Root', undefined as never)) as { first: number[]; second: unknown; third: unknown };
      expect(first).toEqual([2]);
      // Five allowed, two spent by the first child: the second child is refused its fourth request.
      const refusal = budgetError(second);
      expect(refusal).toMatchObject({ dimension: 'modelRequests', limit: 3, spent: 3 });
      expect(refusal?.message).toContain(own ? 'the workflow "Worker" budget' : 'the headroom from the launcher budget');
      // Both children's requests count above them, the failed one's too: nothing is left here.
      expect(budgetError(third)).toMatchObject({ budgetPath: 'Root', limit: 5, spent: 5 });
      expect(model.requests).toHaveLength(5);
      // The failed child's tree is grafted under its step: its four calls, the last one refused.
      const calls = (root as Workflow<unknown>).node.children[1]?.children[0]?.children[0]?.children ?? [];
      expect(calls.map((call) => call.status)).toEqual(['completed', 'completed', 'completed', 'failed']);
    }
  });

  it('records what a fan-out step’s children spent with its output, and a replay of the step books it', async () => {
    const build = (dbos: ReturnType<typeof fakeDbos>, agent: ReturnType<typeof createAgent>) => {
      const Leaf = () => createWorkflow({ name: 'Leaf' }, async () => agent.prompt(createPrompt({ user: 'leaf', responseFormat: Answer })));
      return dbosWorkflows(
        dbos,
        {
          Leaf,
          Root: () =>
            createWorkflow({ name: 'Root', budget: { modelRequests: 3 } }, async (ctx) => {
              const leaves = await ctx.step('fan out', () => dbosChildren(QUEUE, Leaf, [undefined as never, undefined as never]));
              const asked = await agent.prompt(createPrompt({ user: 'fits', responseFormat: Answer }));
              const refused = await agent.prompt(createPrompt({ user: 'does not', responseFormat: Answer })).catch((error: unknown) => budgetError(error));
              return { leaves: leaves.length, asked: asked.n, refused: refused instanceof BudgetExceededError ? refused.spent : 'answered' };
            }),
        },
        { name: 'budgets-test-3' },
      );
    };
    const live = fakeDbos();
    const first = answering();
    expect(await build(live, first.agent).run('Root', undefined as never, { workflowID: 'live' })).toEqual({ leaves: 2, asked: 1, refused: 3 });
    const output = live.outputs.get('step:fan out');
    expect(output).toMatchObject({ 'groundswell.spent': { modelRequests: 2 } });

    // Recovered: the step is answered from the record and runs no child, yet its children count.
    const recovered = fakeDbos();
    recovered.recorded.set('step:fan out', output);
    const second = answering();
    expect(await build(recovered, second.agent).run('Root', undefined as never, { workflowID: 'recovered' })).toEqual({ leaves: 2, asked: 1, refused: 3 });
    expect(recovered.started.size).toBe(1);
    expect(second.model.requests).toHaveLength(1);
  });

  it("a recovered run books what a replayed step's own calls and a replayed top-level call spent, and asks nothing again", async () => {
    // The stand-in keys recorded steps by name: calls after the recorded one use an agent of their own.
    const build = (dbos: ReturnType<typeof fakeDbos>, agent: ReturnType<typeof createAgent>, model: ScriptedModel) => {
      const later = createAgent({ name: 'later', client: model.client({ maxRetries: 0 }) });
      return dbosWorkflows(
        dbos,
        {
          Root: () =>
            createWorkflow({ name: 'Root', budget: { modelRequests: 4 } }, async (ctx) => {
              const inStep = await ctx.step('two calls', async () => {
                await agent.prompt(createPrompt({ user: 'a', responseFormat: Answer }));
                return (await agent.prompt(createPrompt({ user: 'b', responseFormat: Answer }))).n;
              });
              const top = await agent.prompt(createPrompt({ user: 'c', responseFormat: Answer }));
              const fits = await later.prompt(createPrompt({ user: 'd', responseFormat: Answer })).catch((error: unknown) => budgetError(error));
              const refused = await later.prompt(createPrompt({ user: 'e', responseFormat: Answer })).catch((error: unknown) => budgetError(error));
              return { inStep, top: top.n, fits: fits instanceof BudgetExceededError ? 'refused' : 'answered', refused: refused instanceof BudgetExceededError ? refused.spent : 'answered' };
            }),
        },
        { name: 'budgets-test-4' },
      );
    };
    const live = fakeDbos();
    const first = answering();
    const expected = { inStep: 1, top: 1, fits: 'answered', refused: 4 };
    expect(await build(live, first.agent, first.model).run('Root', undefined as never, { workflowID: 'live' })).toEqual(expected);
    expect(first.model.requests).toHaveLength(4);
    expect(live.outputs.get('step:two calls')).toMatchObject({ 'groundswell.spent': { modelRequests: 2 } });

    // Recovered with the step and the first top-level call recorded: both are answered from the
    // record, and what they spent still counts, so only one more request fits.
    const recovered = fakeDbos();
    recovered.recorded.set('step:two calls', live.outputs.get('step:two calls'));
    recovered.recorded.set('agent:asker', live.outputs.get('agent:asker'));
    const second = answering();
    expect(await build(recovered, second.agent, second.model).run('Root', undefined as never, { workflowID: 'recovered' })).toEqual(expected);
    expect(second.model.requests).toHaveLength(1);
  });

  it("children started together split what is left and never pass it together; with budgetShare 'whole' each gets all of it", async () => {
    const run = async (budgetShare: 'split' | 'whole' | undefined) => {
      const dbos = fakeDbos();
      const { agent, model } = answering();
      const Worker = () =>
        createWorkflow({ name: 'Worker' }, (ctx) =>
          ctx.step('three calls', async () => {
            let answered = 0;
            for (let i = 0; i < 3; i += 1) {
              const ok = await agent.prompt(createPrompt({ user: `call ${i}`, responseFormat: Answer })).then(
                () => true,
                (error: unknown) => (budgetError(error) === undefined ? Promise.reject(error) : false),
              );
              if (ok) answered += 1;
            }
            return answered;
          }),
        );
      let root: Workflow<unknown> | undefined;
      const flows = dbosWorkflows(
        dbos,
        {
          Worker,
          Root: () =>
            createWorkflow({ name: 'Root', budget: { modelRequests: 7 } }, (ctx) =>
              ctx.step('fan out', () => dbosChildren(QUEUE, Worker, [undefined as never, undefined as never, undefined as never], budgetShare === undefined ? undefined : { budgetShare })),
            ),
        },
        { name: `budgets-test-5-${String(budgetShare)}`, onWorkflow: (workflow, info) => void (info.name === 'Root' && (root = workflow)) },
      );
      const answered = (await flows.run('Root', undefined as never)) as number[];
      const standing = (root as Workflow<unknown>).node.toJSON().budgets?.[0];
      const children = [...dbos.started].filter(([id]) => id.includes('/Worker#'));
      return { answered, requests: model.requests.length, started: children.map(([, args]) => args[3]), standing };
    };
    // Seven requests left, three children: two each (counts round down), held until each ends.
    const split = await run(undefined);
    expect(split.started).toEqual([{ modelRequests: 2 }, { modelRequests: 2 }, { modelRequests: 2 }]);
    expect(split.answered).toEqual([2, 2, 2]);
    expect(split.requests).toBe(6);
    expect(split.standing).toMatchObject({ spent: { modelRequests: 6 }, reserved: { modelRequests: 0 } });
    expect(await run('split')).toMatchObject({ requests: 6 });
    // All of it each: nobody is refused, and together they pass the limit.
    const whole = await run('whole');
    expect(whole.started).toEqual([{ modelRequests: 7 }, { modelRequests: 7 }, { modelRequests: 7 }]);
    expect(whole.requests).toBe(9);
    expect(whole.standing).toMatchObject({ spent: { modelRequests: 9 } });
  });

  it('refuses a budgetShare that is neither split nor whole', async () => {
    const dbos = fakeDbos();
    const Leaf = () => createWorkflow({ name: 'Leaf' }, async () => 1);
    const flows = dbosWorkflows(
      dbos,
      { Leaf, Root: () => createWorkflow({ name: 'Root' }, (ctx) => ctx.step('fan out', () => dbosChildren(QUEUE, Leaf, [undefined as never], { budgetShare: 'half' as 'split' }))) },
      { name: 'budgets-test-6' },
    );
    await expect(flows.run('Root', undefined as never)).rejects.toThrow(/options\.budgetShare must be "split" or "whole", got "half"/);
    expect([...dbos.started.keys()].filter((id) => id.includes('Leaf'))).toEqual([]);
  });

  it("a budget set to suspend fails at its cap in a DBOS run (DBOS waits with its own messages), with the budget's error", async () => {
    const dbos = fakeDbos();
    const { agent, model } = answering();
    const flows = dbosWorkflows(
      dbos,
      {
        Root: () =>
          createWorkflow({ name: 'Root', budget: { modelRequests: 1, onExceeded: 'suspend' } }, async () => {
            await agent.prompt(createPrompt({ user: 'one', responseFormat: Answer }));
            return agent.prompt(createPrompt({ user: 'two', responseFormat: Answer }));
          }),
      },
      { name: 'budgets-test-7' },
    );
    const error = await flows.run('Root', undefined as never).catch((e: unknown) => e);
    expect(budgetError(error)).toMatchObject({ dimension: 'modelRequests', limit: 1, spent: 1 });
    expect(model.requests).toHaveLength(1);
  });
});
