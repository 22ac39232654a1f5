import { describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow, outcomeOf, Task, Workflow, type Agent } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { Answer } from '../support/agent-helpers.js';
import { agentModel } from '../support/model-path.js';
import { budgetErrorIn } from './budget-helpers.js';

/** Three children, one agent call each, one at a time, under a task whose budget holds two requests. */
class Batch extends Workflow {
  constructor(private readonly agent: Agent) {
    super('batch');
  }

  @Task({ concurrent: true, concurrency: 1, settle: 'all', budget: { modelRequests: 2 } })
  async spawnChildren(): Promise<Workflow[]> {
    return ['a', 'b', 'c'].map((name) =>
      createWorkflow({ name }, (ctx) => ctx.step('ask', () => this.agent.prompt(createPrompt({ user: name, responseFormat: Answer })))),
    );
  }

  override async run(): Promise<Workflow[]> {
    return this.spawnChildren();
  }
}

describe('a task budget with settle: "all"', () => {
  it('refuses the child past the cap and keeps the other children\'s results', async () => {
    const model = new ScriptedModel([json({ answer: 'a' }), json({ answer: 'b' })]);
    const agent = createAgent({ name: 'worker', ...(await agentModel(model)) });
    const children = await new Batch(agent).run();
    const outcomes = children.map(outcomeOf);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(outcomes[0]).toMatchObject({ status: 'fulfilled', value: { answer: 'a' } });
    expect(outcomes[1]).toMatchObject({ status: 'fulfilled', value: { answer: 'b' } });
    const refused = outcomes[2];
    expect(budgetErrorIn(refused?.status === 'rejected' ? refused.error : undefined)).toMatchObject({
      budgetPath: 'batch / spawnChildren',
      dimension: 'modelRequests',
      limit: 2,
      spent: 2,
    });
    expect(model.requests).toHaveLength(2);
  });
});
