import { describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow, exportRun, WorkflowTreeDebugger, type SerializedNode, type WorkflowEvent } from 'groundswell';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { openBudget, budgetStandings } from '../../src/budgets/node-budgets.js';
import { LooseNode } from '../../src/budgets/loose-node.js';
import { adder, Answer } from '../support/agent-helpers.js';
import { deferred } from '../support/deferred.js';
import { agentModel, pricedModel } from '../support/model-path.js';

const MODEL = 'claude-test-1';
// 200 in at $3/MTok and 260 out at $15/MTok: $0.0045 a request.
const USAGE = { usage: { input_tokens: 200, output_tokens: 260 } };
const ask = (user: string) => createPrompt({ user, responseFormat: Answer });
const NOTHING = { usd: 0, tokens: 0, modelRequests: 0, toolCalls: 0 };

async function pricedAgent(model: ScriptedModel, extra: Partial<Parameters<typeof createAgent>[0]> = {}) {
  return createAgent({
    name: 'worker',
    ...(await agentModel(model, { model: MODEL })),
    maxTokens: 300,
    pricing: { [pricedModel(MODEL)]: { inputPerMTok: 3, outputPerMTok: 15 } },
    ...extra,
  });
}

function allNodes(root: SerializedNode): SerializedNode[] {
  const out: SerializedNode[] = [];
  const stack = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    out.push(node);
    stack.push(...node.children);
  }
  return out;
}

function requestsIn(root: SerializedNode): Array<Extract<WorkflowEvent, { type: 'modelRequest' }>> {
  return allNodes(root).flatMap((node) => node.events.filter((event): event is Extract<WorkflowEvent, { type: 'modelRequest' }> => event.type === 'modelRequest'));
}

/** A workflow budget over a step with its own toolCalls budget (one tool call, two requests) and a plain step. */
async function researchRun() {
  const model = new ScriptedModel([toolUse('add', { a: 1, b: 2 }, USAGE), json({ answer: '3' }, USAGE), json({ answer: 'plain' }, USAGE)]);
  const agent = await pricedAgent(model, { tools: [adder().tool] });
  const workflow = createWorkflow({ name: 'research', budget: { usd: 0.05, tokens: 10_000, modelRequests: 10 } }, async (ctx) => {
    await ctx.step('tools', () => agent.prompt(ask('add')), { budget: { toolCalls: 3 } });
    await ctx.step('plain', () => agent.prompt(ask('plain')));
  });
  await workflow.run();
  return workflow;
}

describe("a budget's standing in the tree", () => {
  it('is exported on its node: its limits, spent as the model requests used, nothing reserved once settled; other nodes carry none', async () => {
    const workflow = await researchRun();
    const root = (JSON.parse(JSON.stringify(exportRun(workflow.node))) as ReturnType<typeof exportRun>).root;
    const requests = requestsIn(root);
    expect(requests).toHaveLength(3);
    const usd = requests.reduce((sum, event) => sum + (event.usage.costUsd ?? 0), 0);
    const tokens = requests.reduce((sum, event) => sum + event.usage.inputTokens + event.usage.outputTokens + event.usage.cacheReadInputTokens + event.usage.cacheCreationInputTokens, 0);
    expect(root.budgets).toEqual([
      {
        owner: 'workflow "research"',
        limits: { usd: 0.05, tokens: 10_000, modelRequests: 10 },
        spent: { usd: expect.closeTo(usd, 12) as number, tokens, modelRequests: 3, toolCalls: 1 },
        reserved: NOTHING,
        warnAt: 0.8,
      },
    ]);
    expect(usd).toBeCloseTo(0.0135, 12);
    const step = root.children.find((child) => child.name === 'tools');
    expect(step?.budgets).toEqual([{ owner: 'step "tools"', limits: { toolCalls: 3 }, spent: expect.objectContaining({ modelRequests: 2, toolCalls: 1 }) as object, reserved: NOTHING, warnAt: 0.8 }]);
    const others = allNodes(root).filter((node) => node !== root && node !== step);
    expect(others.length).toBeGreaterThan(3);
    expect(others.filter((node) => 'budgets' in node).map((node) => node.name)).toEqual([]);
    // The node's own toJSON() is plain data too (a snapshot, not the live ledger).
    expect(structuredClone(workflow.node.toJSON()).budgets).toEqual(root.budgets);
  });

  it("shows a request in flight as reserved (its worst case), then settles it to what the request used", async () => {
    const arrived = deferred<void>();
    const release = deferred<void>();
    const model = new ScriptedModel(async () => {
      arrived.resolve();
      await release.promise;
      return json({ answer: 'done' }, USAGE);
    });
    const agent = await pricedAgent(model);
    const workflow = createWorkflow({ name: 'held', budget: { usd: 1, modelRequests: 5 } }, (ctx) => ctx.step('s', () => agent.prompt(ask('one'))));
    const running = workflow.run();
    await arrived.promise;
    const [inFlight] = workflow.node.toJSON().budgets ?? [];
    expect(inFlight?.spent).toEqual(NOTHING);
    expect(inFlight?.reserved.modelRequests).toBe(1);
    // The worst case: maxTokens of output at $15/MTok alone is $0.0045, plus the input estimate.
    expect(inFlight?.reserved.usd).toBeGreaterThan(0.0045);
    release.resolve();
    await running;
    const [settled] = workflow.node.toJSON().budgets ?? [];
    expect(settled?.reserved).toEqual(NOTHING);
    expect(settled?.spent).toMatchObject({ modelRequests: 1, tokens: 460 });
    expect(settled?.spent.usd).toBeCloseTo(0.0045, 12);
  });

  it('shows the limits a raise set and the limit that last refused, until a raise lifts it', () => {
    const node = new LooseNode('call');
    const ledger = openBudget(node, { usd: 1, modelRequests: 1, wallMs: 60_000, warnAt: 0.5 }, 'agent "writer"', () => undefined);
    const one = { usd: 0.01, tokens: 100, modelRequests: 1, toolCalls: 0 };
    ledger.hold(one);
    ledger.settle(one, { usd: 0.004, tokens: 60, modelRequests: 1, toolCalls: 0 });
    const refused = ledger.overrun(one);
    expect(refused).toBe('modelRequests');
    ledger.refuse('modelRequests', one, 'a model request');
    expect(budgetStandings(node)).toEqual([
      {
        owner: 'agent "writer"',
        limits: { usd: 1, modelRequests: 1, wallMs: 60_000 },
        spent: { usd: 0.004, tokens: 60, modelRequests: 1, toolCalls: 0 },
        reserved: NOTHING,
        warnAt: 0.5,
        exceeded: 'modelRequests',
      },
    ]);
    ledger.raise({ modelRequests: 4 });
    ledger.hold(one);
    const [raised] = budgetStandings(node);
    expect(raised?.limits).toEqual({ usd: 1, modelRequests: 4, wallMs: 60_000 });
    expect(raised?.reserved).toEqual(one);
    expect(raised).not.toHaveProperty('exceeded');
    expect(budgetStandings(new LooseNode('none'))).toEqual([]);
  });
});

describe("the tree debugger's budget line", () => {
  it("shows each budget's limits, spent and reserved on its node, live and from an export", async () => {
    const workflow = await researchRun();
    const line = 'budget (workflow "research"): usd $0.0135 spent + $0.0000 reserved of $0.0500 · tokens 1380 spent + 0 reserved of 10000 · modelRequests 3 spent + 0 reserved of 10';
    const live = new WorkflowTreeDebugger(workflow).toTreeString().split('\n');
    expect(live[1]?.trim()).toBe(`│  ${line}`);
    expect(live.some((text) => text.endsWith('budget (step "tools"): toolCalls 1 spent + 0 reserved of 3'))).toBe(true);
    const loaded = new WorkflowTreeDebugger(JSON.stringify(exportRun(workflow.node))).toTreeString().split('\n');
    expect(loaded[1]?.trim()).toBe(`│  ${line}`);
  });

  it('keeps the warning and refusal lines below the standing', async () => {
    const model = new ScriptedModel(() => json({ answer: 'one' }, USAGE));
    const agent = await pricedAgent(model);
    const workflow = createWorkflow({ name: 'capped', budget: { modelRequests: 1, wallMs: 60_000 } }, (ctx) =>
      ctx.step('s', async () => [await agent.prompt(ask('one')), await agent.prompt(ask('two'))]),
    );
    await workflow.run().catch(() => undefined);
    const lines = new WorkflowTreeDebugger(workflow).toTreeString().split('\n');
    const duration = Math.round(workflow.node.duration ?? -1);
    expect(lines.slice(1, 4).map((text) => text.slice(3))).toEqual([
      `budget (workflow "capped"): modelRequests 1 spent + 0 reserved of 1 · wallMs ${duration} ms of 60000 ms`,
      'budget warning: modelRequests limit 1, spent 0, reserved 1, needed 1 (warns at 80%)',
      'budget exceeded: modelRequests limit 1, spent 1, reserved 0, needed 1',
    ]);
  });
});
