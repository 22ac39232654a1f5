import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentLoopStoppedError, createAgent, createPrompt, createWorkflow, type ContextCompactedEvent, type WorkflowEvent } from 'groundswell';
import { json, ScriptedModel, toolUse, type RecordedRequest } from 'groundswell/testing';
import { registerTurnFeature, type TurnFeatureOptions } from '../../src/agent/turn-features.js';
import type { ToolCallDone, TurnFeature, TurnFeatureFactory } from '../../src/agent/turn-feature.js';
import { CHECKPOINT_HEADING } from '../../src/trajectory/render-checkpoint.js';

import { adder } from '../support/agent-helpers.js';
import { agentModel, nativeOnly, providerPath, systemText } from '../support/model-path.js';

const Sum = z.object({ sum: z.number() });

function systemBlocks(request: RecordedRequest | undefined): string[] {
  const system = request?.body.system as string | Array<{ text: string }> | undefined;
  if (system === undefined) return [];
  return typeof system === 'string' ? [system] : system.map((block) => block.text);
}

/** Registers a factory for agents of one name only, removed again after the test by its handle. */
let unregister: (() => void) | undefined;
function register(agentName: string, make: () => TurnFeature): void {
  const factory: TurnFeatureFactory<TurnFeatureOptions> = (context) => (context.agentName === agentName ? make() : undefined);
  unregister = registerTurnFeature(factory);
}
afterEach(() => {
  unregister?.();
  unregister = undefined;
});

/** A small custom feature: a per-request block naming the round, and what it observed. */
function roundCounter() {
  const seen = { rounds: [] as number[], calls: [] as ToolCallDone[], compactions: [] as number[] };
  const feature: TurnFeature = {
    name: 'round-counter',
    beforeRequest(request) {
      request.systemBlocks.push(`<round>${seen.rounds.length + 1}</round>`);
    },
    afterToolCall(done) {
      seen.calls.push(done);
    },
    afterToolRound(turn) {
      seen.rounds.push(turn);
    },
    onCompaction(turn) {
      seen.compactions.push(turn);
    },
  };
  return { feature, seen };
}

describe('turn features', () => {
  it('a registered feature adds a block to each request (after the cached system text, never into the history) and sees every tool round', async () => {
    const { tool } = adder();
    const { feature, seen } = roundCounter();
    register('counting', () => feature);
    const model = new ScriptedModel([toolUse('add', { a: 2, b: 3 }), toolUse('add', { a: 5, b: 1 }), json({ sum: 6 })]);
    const agent = createAgent({ name: 'counting', ...(await agentModel(model)), system: 'You add.', tools: [tool] });
    const result = await agent.execute(createPrompt({ user: '(2+3)+1?', responseFormat: Sum }));

    expect(result.value).toEqual({ sum: 6 });
    // The provider path joins the blocks into one system message, in the same order.
    if (providerPath) {
      expect(model.requests.map((r) => systemText(r.body))).toEqual([1, 2, 3].map((n) => `You add.\n\n<round>${n}</round>`));
    } else {
      expect(model.requests.map(systemBlocks)).toEqual([
        [expect.stringContaining('You add.'), '<round>1</round>'],
        [expect.stringContaining('You add.'), '<round>2</round>'],
        [expect.stringContaining('You add.'), '<round>3</round>'],
      ]);
    }
    expect(JSON.stringify(model.requests.map((r) => r.body.messages))).not.toContain('<round>');
    expect(seen.rounds).toEqual([1, 2]);
    expect(seen.calls.map((done) => [done.turn, done.record.name, done.record.output])).toEqual([
      [1, 'add', '5'],
      [2, 'add', '6'],
    ]);
  });

  it('another agent without the feature sends exactly what it sent before', async () => {
    register('counting', () => roundCounter().feature);
    const model = new ScriptedModel([json({ sum: 1 })]);
    await createAgent({ name: 'plain', ...(await agentModel(model)), system: 'You add.' }).prompt(
      createPrompt({ user: '1?', responseFormat: Sum }),
    );
    expect(systemText(model.requests[0]?.body ?? {})).toBe('You add.');
  });

  it('hears about a compaction done by the built-in feature, and runs after the built-in blocks', async () => {
    const { tool } = adder();
    const { feature, seen } = roundCounter();
    register('compacting', () => feature);
    const steps = Array.from({ length: 6 }, (_, i) => toolUse('add', { a: i, b: 1 }, { text: 'x'.repeat(400) }));
    const model = new ScriptedModel([...steps, json({ sum: 6 })]);
    const dir = mkdtempSync(join(tmpdir(), 'gs-turns-'));
    const planPath = join(dir, 'PLAN.md');
    writeFileSync(planPath, '# Plan\n\n## Goals\n- [ ] G1: add\n\n## Log\n');
    const agent = createAgent({
      name: 'compacting',
      ...(await agentModel(model)),
      system: 'You add.',
      tools: [tool],
      maxTurns: 8,
      plan: { path: planPath },
      trajectory: { checkpoint: 'always', contextBudget: { maxChars: 2_000, keepTurns: 2 } },
    });
    const events: WorkflowEvent[] = [];
    const wf = createWorkflow({ name: 'sums', goal: 'Add' }, (ctx) =>
      ctx.step('add', () => agent.prompt(createPrompt({ user: 'Add them', responseFormat: Sum }))),
    );
    wf.addObserver({ onEvent: (event) => events.push(event) });
    await wf.run();

    const compacted = events.filter((e): e is ContextCompactedEvent => e.type === 'contextCompacted').map((e) => e.turn);
    expect(compacted.length).toBeGreaterThan(0);
    expect(seen.compactions).toEqual(compacted);
    // After a compaction: the plan resync, the checkpoint (built-in, in registration order), then ours.
    const request = model.requests[(compacted[0] ?? 0) - 1];
    const text = systemText(request?.body ?? {}) ?? '';
    const order = ['You add.', 'Earlier turns were compacted.', `\n\n${CHECKPOINT_HEADING}`, '\n\n<round>'].map((part) => text.indexOf(part));
    expect(order[0]).toBe(0);
    expect(order.slice(1).every((at, i) => at > (order[i] ?? Infinity))).toBe(true);
    expect(text).toMatch(/\n\n<round>\d<\/round>$/);
    // The provider path joins the blocks into one system message: only the Messages body has them apart.
    if (providerPath) return;
    const blocks = systemBlocks(request);
    expect(blocks[0]).toContain('You add.');
    const plan = blocks.findIndex((text) => text.includes('Earlier turns were compacted.'));
    const checkpoint = blocks.findIndex((text) => text.startsWith(CHECKPOINT_HEADING));
    expect(plan).toBeGreaterThan(0);
    expect(checkpoint).toBe(plan + 1);
    expect(blocks[checkpoint + 1]).toMatch(/^<round>\d<\/round>$/);
    expect(blocks).toHaveLength(checkpoint + 2);
  });

  // An override by model id is for the Anthropic client; on a provider model it must be a model object (provider-model.test.ts).
  nativeOnly('a feature changes one request only: another model, a subset of the tools, a tool choice', async () => {
    const { tool } = adder();
    register('switching', () => ({
      name: 'switcher',
      beforeRequest(request) {
        if (request.turn === 2) request.override({ model: 'claude-haiku-4-5', tools: [], toolChoice: 'none' });
      },
    }));
    const model = new ScriptedModel([toolUse('add', { a: 2, b: 3 }), json({ sum: 5 }), json({ sum: 9 })]);
    const agent = createAgent({ name: 'switching', ...(await agentModel(model, { model: 'claude-sonnet-5-5' })), tools: [tool] });
    const events: WorkflowEvent[] = [];
    const wf = createWorkflow({ name: 'switch' }, (ctx) =>
      ctx.step('ask', async () => {
        await agent.prompt(createPrompt({ user: '2+3?', responseFormat: Sum }));
        return agent.prompt(createPrompt({ user: '4+5?', responseFormat: Sum }));
      }),
    );
    wf.addObserver({ onEvent: (event) => events.push(event) });
    await wf.run();

    const [first, second, third] = model.requests.map((r) => r.body);
    expect([first?.model, second?.model, third?.model]).toEqual(['claude-sonnet-5-5', 'claude-haiku-4-5', 'claude-sonnet-5-5']);
    expect((first?.tools as unknown[] | undefined)?.length).toBe(1);
    expect(second?.tools).toBeUndefined();
    expect(second?.tool_choice).toBeUndefined();
    expect((third?.tools as unknown[] | undefined)?.length).toBe(1);
    const requested = events.flatMap((e) => (e.type === 'modelRequest' ? [e.requestModel] : []));
    expect(requested).toEqual(['claude-sonnet-5-5', 'claude-haiku-4-5', 'claude-sonnet-5-5']);
  });

  it('a feature offering a tool the call does not have is a UsageError naming both', async () => {
    const { tool } = adder();
    register('offering', () => ({ name: 'offerer', beforeRequest: (request) => request.override({ tools: ['delete_everything'] }) }));
    const model = new ScriptedModel([json({ sum: 1 })]);
    const agent = createAgent({ name: 'offering', ...(await agentModel(model)), tools: [tool] });
    await expect(agent.prompt(createPrompt({ user: '1?', responseFormat: Sum }))).rejects.toThrow(
      /Turn feature "offerer" offered tool "delete_everything", which this call does not have \(it has: add\)/,
    );
    expect(model.requests).toHaveLength(0);
  });

  it('a feature stops the loop before a request: the call fails with AgentLoopStoppedError and nothing more is sent', async () => {
    const { tool, calls } = adder();
    const asked: string[] = [];
    register('stopping', () => ({
      name: 'limit',
      beforeRequest(request) {
        if (request.turn === 2) request.stop('two requests are the limit');
      },
    }));
    // A feature after the stopping one is not asked on that request.
    const later = registerTurnFeature((context) =>
      context.agentName === 'stopping' ? { name: 'later', beforeRequest: (request) => void asked.push(`turn ${request.turn}`) } : undefined,
    );
    try {
      const model = new ScriptedModel([toolUse('add', { a: 1, b: 1 }), json({ sum: 2 })]);
      const agent = createAgent({ name: 'stopping', ...(await agentModel(model)), tools: [tool] });
      const error: unknown = await agent.prompt(createPrompt({ user: '1+1?', responseFormat: Sum })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AgentLoopStoppedError);
      expect(error).toMatchObject({ feature: 'limit', reason: 'two requests are the limit', turn: 2, agentName: 'stopping', retryable: false });
      expect(model.requests).toHaveLength(1);
      expect(calls).toEqual([{ a: 1, b: 1 }]);
      expect(asked).toEqual(['turn 1']);
    } finally {
      later();
    }
  });
});
