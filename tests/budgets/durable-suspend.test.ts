import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BudgetExceededError,
  createAgent,
  createPrompt,
  createWorkflow,
  isSuspension,
  signal,
  SignalValueError,
  type Budget,
  type Workflow,
  type WorkflowContext,
} from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { json, ScriptedModel } from 'groundswell/testing';
import { Answer } from '../support/agent-helpers.js';
import { eventsOfType, record } from '../support/events.js';
import { agentModelSync, pricedModel } from '../support/model-path.js';
import { budgetErrorIn } from './budget-helpers.js';

let dir: string;
let store: JournalRunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-budget-suspend-'));
  store = new JournalRunStore({ dir, fsync: 'off' });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A model that answers every request and counts them by the step that asked. */
function countingModel(): { model: ScriptedModel; asked: Map<string, number> } {
  const asked = new Map<string, number>();
  const model = new ScriptedModel((request) => {
    const step = /step (\d+)/.exec(JSON.stringify(request.body.messages))?.[0] ?? '?';
    asked.set(step, (asked.get(step) ?? 0) + 1);
    return json({ answer: step }, { usage: { input_tokens: 10, output_tokens: 10 } });
  });
  return { model, asked };
}

/** Four steps, one agent call each, under a root budget. */
function pipeline(model: ScriptedModel, budget: Budget, runId = 'r1'): () => Workflow<string[]> {
  const agent = createAgent({ name: 'writer', ...agentModelSync(model), maxTokens: 100 });
  return () =>
    createWorkflow({ name: 'Pipeline', budget, durable: { store, runId } }, async (ctx: WorkflowContext) => {
      const answers: string[] = [];
      for (let i = 1; i <= 4; i += 1) {
        answers.push(await ctx.step(`s${i}`, async () => (await agent.prompt(createPrompt({ user: `step ${i}`, responseFormat: Answer }))).answer));
      }
      return answers;
    });
}

describe("onExceeded: 'suspend' in a durable run", () => {
  it('suspends at the cap, resumes on a raise signal, counts what ran before the resume, and repeats no call', async () => {
    const { model, asked } = countingModel();
    const build = pipeline(model, { modelRequests: 2, onExceeded: 'suspend' });
    const first = build();
    const recording = record(first);
    const error = await first.run().catch((e: unknown) => e);
    expect(isSuspension(error)).toBe(true);
    expect(model.requests).toHaveLength(2);
    const run = await store.getRun('r1');
    expect(run?.status).toBe('suspended');
    expect(run?.waitingFor?.name).toBe('budget');
    const exceeded = eventsOfType(recording.events, 'budgetExceeded');
    expect(exceeded).toHaveLength(1);
    expect(exceeded[0]).toMatchObject({ dimension: 'modelRequests', limit: 2, spent: 2, needed: 1 });
    expect(recording.events.filter((e) => e.type === 'waitStarted').map((e) => (e as { name?: string }).name)).toEqual(['budget']);

    // Raised to 3: the resumed run books the 2 requests made before it, so only one more fits.
    await expect(signal('r1', 'budget', { modelRequests: 3 }, { store, workflows: { Pipeline: build } })).rejects.toSatisfy(isSuspension);
    expect(model.requests).toHaveLength(3);
    expect((await store.getRun('r1'))?.status).toBe('suspended');

    const result = await signal('r1', 'budget', { modelRequests: 4 }, { store, workflows: { Pipeline: build } });
    expect(result).toEqual(['step 1', 'step 2', 'step 3', 'step 4']);
    expect(model.requests).toHaveLength(4);
    expect([...asked.values()]).toEqual([1, 1, 1, 1]);
    expect((await store.getRun('r1'))?.status).toBe('completed');
  });

  it('books the dollars of replayed steps and calls: a usd raise only lets through what fits above them', async () => {
    const model = new ScriptedModel((request) =>
      json({ answer: /step \d/.exec(JSON.stringify(request.body.messages))?.[0] ?? '?' }, { usage: { input_tokens: 10, output_tokens: 90 } }),
    );
    const price = { inputPerMTok: 1_000, outputPerMTok: 1_000 };
    const agent = createAgent({ name: 'writer', ...agentModelSync(model, { model: 'm' }), maxTokens: 100, pricing: { [pricedModel('m')]: price } });
    // Each request holds about $0.3 (its input estimate at the cache-write rate plus 100 output
    // tokens, at $0.001 a token) and spends (10 + 90) x $0.001 = $0.10: $0.45 lets two through.
    const build = (): Workflow<string[]> =>
      createWorkflow({ name: 'Pipeline', budget: { usd: 0.45, onExceeded: 'suspend' }, durable: { store, runId: 'usd' } }, async (ctx) => {
        const answers: string[] = [];
        for (let i = 1; i <= 4; i += 1) {
          answers.push(await ctx.step(`s${i}`, async () => (await agent.prompt(createPrompt({ user: `step ${i}`, responseFormat: Answer }))).answer));
        }
        return answers;
      });
    const error = await build()
      .run()
      .catch((e: unknown) => e);
    expect(isSuspension(error)).toBe(true);
    const before = model.requests.length;
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(4);
    // The same limit again lets nothing more through: what ran before the resume still counts.
    await expect(signal('usd', 'budget', { usd: 0.45 }, { store, workflows: { Pipeline: build } })).rejects.toSatisfy(isSuspension);
    expect(model.requests).toHaveLength(before);
    const result = await signal('usd', 'budget', { usd: 10 }, { store, workflows: { Pipeline: build } });
    expect(result).toEqual(['step 1', 'step 2', 'step 3', 'step 4']);
    expect(model.requests).toHaveLength(4);
  });

  it('a fan-out that reaches the cap suspends once; one raise lets every child go on, each call made once', async () => {
    const { model, asked } = countingModel();
    const agent = createAgent({ name: 'worker', ...agentModelSync(model), maxTokens: 100 });
    const build = (): Workflow<string[]> =>
      createWorkflow({ name: 'FanOut', budget: { modelRequests: 3, onExceeded: 'suspend', raiseSignal: 'more-requests' }, durable: { store, runId: 'fan' } }, (ctx) =>
        ctx.map(
          [1, 2, 3, 4, 5, 6, 7, 8],
          (i) => ctx.step(`child ${i}`, async () => (await agent.prompt(createPrompt({ user: `step ${i}`, responseFormat: Answer }))).answer),
          { concurrency: 4 },
        ),
      );
    const error = await build()
      .run()
      .catch((e: unknown) => e);
    expect(isSuspension(error)).toBe(true);
    expect(model.requests).toHaveLength(3);
    expect((await store.getRun('fan'))?.waitingFor?.name).toBe('more-requests');
    const result = await signal('fan', 'more-requests', { modelRequests: 8 }, { store, workflows: { FanOut: build } });
    expect(result).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((i) => `step ${i}`));
    expect(model.requests).toHaveLength(8);
    expect([...asked.values()].every((n) => n === 1)).toBe(true);
  });

  it('a raise signal that is not a raise is rejected and the run keeps waiting', async () => {
    const { model } = countingModel();
    const build = pipeline(model, { modelRequests: 1, onExceeded: 'suspend' }, 'bad');
    await expect(build().run()).rejects.toSatisfy(isSuspension);
    for (const bad of [{ modelRequests: -1 }, { usd: 'lots' }, {}, { modelRequests: 2, extra: true }]) {
      const refused = await signal('bad', 'budget', bad, { store, workflows: { Pipeline: build } }).catch((e: unknown) => e);
      expect(refused, JSON.stringify(bad)).toBeInstanceOf(SignalValueError);
      expect((await store.getRun('bad'))?.status).toBe('suspended');
    }
    expect(model.requests).toHaveLength(1);
    const result = await signal('bad', 'budget', { modelRequests: 4 }, { store, workflows: { Pipeline: build } });
    expect(result).toHaveLength(4);
    expect(model.requests).toHaveLength(4);
  });

  it("outside a durable run 'suspend' fails at the cap like 'fail'", async () => {
    const { model } = countingModel();
    const agent = createAgent({ name: 'writer', ...agentModelSync(model), maxTokens: 100 });
    const workflow = createWorkflow({ name: 'Plain', budget: { modelRequests: 1, onExceeded: 'suspend' } }, async (ctx) => {
      await ctx.step('s1', () => agent.prompt(createPrompt({ user: 'step 1', responseFormat: Answer })));
      await ctx.step('s2', () => agent.prompt(createPrompt({ user: 'step 2', responseFormat: Answer })));
    });
    const error = await workflow.run().catch((e: unknown) => e);
    expect(budgetErrorIn(error)).toBeInstanceOf(BudgetExceededError);
    expect(model.requests).toHaveLength(1);
  });

  it('a bad onExceeded or raiseSignal is a UsageError at creation', () => {
    expect(() => createWorkflow({ name: 'w', budget: { usd: 1, onExceeded: 'pause' as 'suspend' } }, () => undefined)).toThrow(
      /budget\.onExceeded must be one of: fail, suspend, got "pause"/,
    );
    expect(() => createWorkflow({ name: 'w', budget: { usd: 1, raiseSignal: ' ' } }, () => undefined)).toThrow(/budget\.raiseSignal must be a non-empty signal name/);
  });
});
