import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, Task, Workflow, type Agent, type GoalAncestry, type WorkflowNode } from 'groundswell';
import { json, ScriptedModel, type RecordedRequest } from 'groundswell/testing';
import { allNodes, must } from '../support/core-helpers.js';
import { deferred } from '../support/deferred.js';
import { eventsOfType, record } from '../support/events.js';
import { ancestrySent, HEADING } from './helpers.js';

const Echo = z.object({ goal: z.string().nullable() });
const whichGoal = createPrompt({ name: 'which goal', user: 'Which goal are you working on?', responseFormat: Echo });

/**
 * A model that holds every answer until `expected` requests are in flight at once, then answers
 * each with the goal its own request carried. `arrived(n)` resolves once the n-th request arrived.
 */
function gatedModel(expected: number) {
  const arrivals = Array.from({ length: expected }, () => deferred());
  const allInFlight = deferred();
  let count = 0;
  const model = new ScriptedModel(async (request: RecordedRequest) => {
    arrivals[count]?.resolve();
    count += 1;
    if (count === expected) allInFlight.resolve();
    await allInFlight.promise;
    return json({ goal: ancestrySent(request).goal ?? null });
  });
  return { model, arrived: (n: number) => must(arrivals[n - 1], `arrival ${n}`).promise };
}

/** The goalAncestry each agentPrompt node of a subtree recorded, in tree order. */
function recordedAncestries(root: WorkflowNode): Array<GoalAncestry | undefined> {
  return allNodes(root)
    .filter((node) => node.kind === 'agentPrompt')
    .map((node) => eventsOfType(node.events, 'agentPromptStart')[0]?.goalAncestry);
}

describe('one Agent shared by workflows running at the same time', () => {
  it('two interleaved workflows with different goals each send their own goal', async () => {
    const { model, arrived } = gatedModel(2);
    const agent = createAgent({ name: 'shared', system: 'You help.', client: model.client() });
    const alphaMayAsk = deferred();
    const seen: Record<string, GoalAncestry> = {};

    const alpha = createWorkflow({ name: 'alpha', project: 'Alpha project', goal: 'Alpha goal' }, (ctx) =>
      ctx.step('ask', async () => {
        await alphaMayAsk.promise; // asks only once beta's call is already in flight
        const answer = await agent.prompt(whichGoal);
        seen.alpha = agent.goalAncestry(); // still alpha's context after the interleaving
        return answer;
      }),
    );
    const beta = createWorkflow({ name: 'beta', mission: 'Beta mission', goal: 'Beta goal' }, (ctx) =>
      ctx.step('ask', async () => {
        const answer = await agent.prompt(whichGoal);
        seen.beta = agent.goalAncestry();
        return answer;
      }),
    );

    const alphaRun = alpha.run();
    const betaRun = beta.run();
    await arrived(1); // beta's request is on the wire, unanswered
    alphaMayAsk.resolve();
    const [alphaAnswer, betaAnswer] = await Promise.all([alphaRun, betaRun]);

    expect(model.requests).toHaveLength(2);
    // beta asked first, alpha second, while beta's call was still waiting for its answer
    const [first, second] = model.requests as [RecordedRequest, RecordedRequest];
    expect(ancestrySent(first)).toEqual({ mission: 'Beta mission', goal: 'Beta goal' });
    expect(ancestrySent(second)).toEqual({ project: 'Alpha project', goal: 'Alpha goal' });
    expect(JSON.stringify(first.body.system)).not.toContain('Alpha');
    expect(JSON.stringify(second.body.system)).not.toContain('Beta');

    expect(alphaAnswer).toEqual({ goal: 'Alpha goal' });
    expect(betaAnswer).toEqual({ goal: 'Beta goal' });
    expect(seen).toEqual({
      alpha: { project: 'Alpha project', goal: 'Alpha goal' },
      beta: { mission: 'Beta mission', goal: 'Beta goal' },
    });
    // each tree records the ancestry its own call used
    expect(recordedAncestries(alpha.node)).toEqual([{ project: 'Alpha project', goal: 'Alpha goal' }]);
    expect(recordedAncestries(beta.node)).toEqual([{ mission: 'Beta mission', goal: 'Beta goal' }]);
  });

  it('sibling workflows spawned with Promise.all under one parent share its mission and keep their own goals', async () => {
    const { model } = gatedModel(3);
    const agent = createAgent({ name: 'shared', client: model.client() });
    const child = (goal: string) =>
      createWorkflow({ name: goal, goal }, (ctx) => ctx.step('ask', () => agent.prompt(whichGoal)));
    const parent = createWorkflow({ name: 'parent', mission: 'Common mission' }, (ctx) =>
      ctx.step('fan out', () =>
        Promise.all(['Goal one', 'Goal two', 'Goal three'].map((goal) => ctx.spawnWorkflow(child(goal)))),
      ),
    );
    const answers = await parent.run();

    expect(answers).toEqual([{ goal: 'Goal one' }, { goal: 'Goal two' }, { goal: 'Goal three' }]);
    const sent = model.requests.map(ancestrySent);
    expect(sent).toHaveLength(3);
    expect(sent).toEqual(
      expect.arrayContaining([
        { mission: 'Common mission', goal: 'Goal one' },
        { mission: 'Common mission', goal: 'Goal two' },
        { mission: 'Common mission', goal: 'Goal three' },
      ]),
    );
  });

  it('children of a concurrent @Task keep their own goals', async () => {
    const { model } = gatedModel(2);
    const agent: Agent = createAgent({ name: 'shared', client: model.client() });

    class Worker extends Workflow<{ goal: string | null }> {
      override async run(): Promise<{ goal: string | null }> {
        return agent.prompt(whichGoal);
      }
    }
    class Lead extends Workflow<void> {
      @Task({ concurrent: true })
      async split(): Promise<Worker[]> {
        return [new Worker({ name: 'docs', goal: 'Write docs' }), new Worker({ name: 'tests', goal: 'Write tests' })];
      }

      override async run(): Promise<void> {
        await this.split();
      }
    }

    const lead = new Lead({ name: 'lead', project: 'Release' });
    const recording = record(lead);
    await lead.run();

    const goals = model.requests.map((request) => ancestrySent(request).goal).sort();
    expect(goals).toEqual(['Write docs', 'Write tests']);
    for (const request of model.requests) expect(ancestrySent(request).project).toBe('Release');
    const starts = eventsOfType(recording.events, 'agentPromptStart').map((event) => event.goalAncestry?.goal).sort();
    expect(starts).toEqual(['Write docs', 'Write tests']);
    for (const request of model.requests) expect(JSON.stringify(request.body.system)).toContain(HEADING);
  });
});
