import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow, exportRun } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { serveViewer, type NodeDetails, type NodeRow, type Viewer } from 'groundswell/viewer';
import { Answer } from '../support/agent-helpers.js';
import { deferred } from '../support/deferred.js';
import { agentModel } from '../support/model-path.js';
import { get } from './http-get.js';

let viewer: Viewer | undefined;
afterEach(async () => {
  await viewer?.close();
  viewer = undefined;
});

const ask = (user: string) => createPrompt({ user, responseFormat: Answer });

async function detailsOf(url: string, name: string): Promise<NodeDetails> {
  const rows = (JSON.parse((await get(new URL('/api/tree', url).href)).body) as { rows: NodeRow[] }).rows;
  const row = rows.find((r) => r.name === name);
  if (row === undefined) throw new Error(`no row "${name}" in ${rows.map((r) => r.name).join(', ')}`);
  return JSON.parse((await get(new URL(`/api/node/${encodeURIComponent(row.id)}`, url).href)).body) as NodeDetails;
}

describe("the viewer's budget details", () => {
  it("give a budget's node its limits, spent and reserved, and its warnings and refusals, live and from a stored run", async () => {
    const model = new ScriptedModel(() => json({ answer: 'ok' }));
    const agent = createAgent({ name: 'worker', ...(await agentModel(model)) });
    const workflow = createWorkflow({ name: 'capped', budget: { modelRequests: 2 } }, (ctx) =>
      ctx.step('s', async () => [await agent.prompt(ask('one')), await agent.prompt(ask('two')), await agent.prompt(ask('three'))]),
    );
    viewer = await serveViewer();
    viewer.attach(workflow);
    await workflow.run().catch(() => undefined);
    const expected = {
      budgets: [
        {
          owner: 'workflow "capped"',
          limits: { modelRequests: 2 },
          spent: expect.objectContaining({ modelRequests: 2, toolCalls: 0 }) as object,
          reserved: { usd: 0, tokens: 0, modelRequests: 0, toolCalls: 0 },
          warnAt: 0.8,
          exceeded: 'modelRequests',
        },
      ],
      budgetEvents: [
        expect.objectContaining({ type: 'budgetWarning', dimension: 'modelRequests', limit: 2, spent: 1, reserved: 1, needed: 1, warnAt: 0.8 }),
        expect.objectContaining({ type: 'budgetExceeded', dimension: 'modelRequests', limit: 2, spent: 2, reserved: 0, needed: 1 }),
      ],
    };
    const live = await detailsOf(viewer.url, 'capped');
    expect(live).toMatchObject(expected);
    const step = await detailsOf(viewer.url, 's');
    expect({ budgets: step.budgets, budgetEvents: step.budgetEvents }).toEqual({ budgets: [], budgetEvents: [] });
    viewer.show(JSON.stringify(exportRun(workflow.node)));
    const stored = await detailsOf(viewer.url, 'capped');
    expect(stored).toMatchObject(expected);
    expect(stored.budgets).toEqual(live.budgets);
  });

  it('read the standing afresh on each request, so a page that asks again sees what was spent since', async () => {
    const gate = deferred<void>();
    const model = new ScriptedModel(() => json({ answer: 'ok' }));
    const agent = createAgent({ name: 'worker', ...(await agentModel(model)) });
    const workflow = createWorkflow({ name: 'growing', budget: { modelRequests: 5 } }, async (ctx) => {
      await ctx.step('first', () => agent.prompt(ask('one')));
      await gate.promise;
      await ctx.step('second', () => agent.prompt(ask('two')));
    });
    viewer = await serveViewer({ batchMs: 20 });
    viewer.attach(workflow);
    const running = workflow.run();
    await expect.poll(() => model.requests.length).toBe(1);
    await expect.poll(async () => (await detailsOf(viewer?.url ?? '', 'growing')).budgets[0]?.spent.modelRequests).toBe(1);
    gate.resolve();
    await running;
    const after = await detailsOf(viewer.url, 'growing');
    expect(after.budgets[0]?.spent.modelRequests).toBe(2);
    expect(after.budgets[0]?.reserved.modelRequests).toBe(0);
  });
});
