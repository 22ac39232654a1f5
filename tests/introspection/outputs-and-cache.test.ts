import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, ObservedState, REDACTED, Workflow } from 'groundswell';
import { LruCacheStore } from 'groundswell/cache';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { introspectionTools } from '../../src/introspection/introspection-tools.js';
import { Answer, resultText, runningNodes } from '../support/agent-helpers.js';
import { FakeClock } from '../support/fake-clock.js';
import { field, sentAnswer, sentResults } from './helpers.js';

const SECRET = 'sk-live-INTROSPECT-SECRET-77';
const NESTED_SECRET = 'nested-INTROSPECT-pw';
const HIDDEN = 'HIDDEN-INTROSPECT-SCRATCH';

class Vault extends Workflow<unknown> {
  @ObservedState() visible = 'public-value';
  @ObservedState({ redact: true }) apiKey = SECRET;
  @ObservedState({ redact: true }) credentials = { user: 'bob', password: NESTED_SECRET };
  @ObservedState({ hidden: true }) scratch = HIDDEN;
}

const ask = (user: string) => createPrompt({ user, responseFormat: Answer });

describe('redaction', () => {
  it('answers show redacted fields as *** and never hidden ones, in state, prior outputs and goals', async () => {
    const model = new ScriptedModel([
      toolUse([
        { name: 'inspect_current_node', input: {} },
        { name: 'inspect_prior_outputs', input: { scope: 'run' } },
        { name: 'read_ancestor_chain', input: {} },
      ]),
      json({ answer: 'seen' }),
    ]);
    const agent = createAgent({ name: 'auditor', client: model.client(), tools: introspectionTools() });
    const vault: Vault = new Vault({ name: 'vault', goal: `Rotate the key ${SECRET} safely` }, async (ctx) => {
      await ctx.step('prepare', () => (vault.visible = 'prepared'), { snapshotState: true });
      return ctx.step('audit', () => agent.prompt(ask('What do you see?')));
    });
    await vault.run();

    const results = sentResults(model, 1);
    expect(results.map((r) => r.is_error)).toEqual([false, false, false]);
    const texts = results.map((r) => resultText(r));
    for (const text of texts) {
      for (const forbidden of [SECRET, NESTED_SECRET, HIDDEN, 'scratch']) expect(text).not.toContain(forbidden);
    }
    const [current, prior, chain] = texts.map((text) => JSON.parse(text) as unknown);
    expect(field(current, 'workflow', 'state')).toEqual({ visible: 'prepared', apiKey: REDACTED, credentials: REDACTED });
    expect(field(current, 'workflow', 'goal')).toBe('Rotate the key *** safely');
    const snapshot = (field(prior, 'entries') as Array<{ kind: string; state?: unknown }>).find((e) => e.kind === 'stateSnapshot');
    expect(snapshot?.state).toEqual({ visible: 'prepared', apiKey: REDACTED, credentials: REDACTED });
    expect(field(chain, 'chain', 2, 'goal')).toBe('Rotate the key *** safely');
  });
});

describe('inspect_prior_outputs', () => {
  function pipeline(limit?: number) {
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks facts up.',
      input: z.object({ topic: z.string() }),
      execute: ({ topic }) => ({ topic, facts: ['tides follow the moon'] }),
    });
    const researcherModel = new ScriptedModel([toolUse('lookup', { topic: 'tides' }), json({ answer: 'tides follow the moon' })]);
    const researcher = createAgent({ name: 'researcher', client: researcherModel.client(), tools: [lookup] });
    const writerModel = new ScriptedModel([
      toolUse('inspect_current_node', {}),
      toolUse('inspect_prior_outputs', limit === undefined ? {} : { limit }),
      json({ answer: 'written' }),
    ]);
    const writer = createAgent({ name: 'writer', client: writerModel.client(), tools: introspectionTools() });
    const workflow = createWorkflow({ name: 'article', clock: new FakeClock({ tick: 1 }) }, async (ctx) => {
      await ctx.step('research', () => researcher.prompt(ask('Research tides')));
      await ctx.step('explode', () => Promise.reject(new Error('draft store offline'))).catch(() => undefined);
      return ctx.step('write', () => writer.prompt(ask('Write it up')));
    });
    return { workflow, writerModel };
  }

  it('returns earlier steps, agent calls and tool results, most recent first, without the calling call itself', async () => {
    const { workflow, writerModel } = pipeline();
    await workflow.run();

    const answer = sentAnswer(writerModel, 2);
    expect(answer).toMatchObject({ scope: 'workflow', total: 4 });
    const entries = answer.entries as Array<Record<string, unknown>>;
    expect(entries.map((e) => [e.kind, e.name ?? e.toolName])).toEqual([
      ['step', 'explode'],
      ['step', 'research'],
      ['agentPrompt', 'researcher: Research tides'],
      ['toolCall', 'lookup'],
    ]);
    expect(entries[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('draft store offline') });
    expect(entries[2]).toMatchObject({ agentName: 'researcher', status: 'completed', turns: 2, cached: false, stopReason: 'end_turn' });
    expect(entries[3]).toMatchObject({ input: { topic: 'tides' }, isError: false });
    expect(JSON.parse(String(entries[3]?.output))).toEqual({ topic: 'tides', facts: ['tides follow the moon'] });
    // The writer's own earlier tool call (inspect_current_node) is not a prior output.
    expect(JSON.stringify(entries)).not.toContain('inspect_current_node');
    const ats = entries.map((e) => Date.parse(String(e.at)));
    expect(ats.every(Number.isFinite)).toBe(true);
    expect([...ats].sort((a, b) => b - a)).toEqual(ats);
    expect(runningNodes(workflow.node)).toEqual([]);
  });

  it('honours limit, and total still counts everything', async () => {
    const { workflow, writerModel } = pipeline(2);
    await workflow.run();
    const answer = sentAnswer(writerModel, 2);
    expect(answer.total).toBe(4);
    expect((answer.entries as Array<{ kind: string }>).map((e) => e.kind)).toEqual(['step', 'step']);
  });
});

describe('inspect_cache_status', () => {
  it('reports the store metrics and the hit/miss events seen in this workflow', async () => {
    const cache = new LruCacheStore();
    const classifierModel = new ScriptedModel([json({ answer: 'bug' })]);
    const classifier = createAgent({ name: 'classifier', client: classifierModel.client(), enableCache: true, cache });
    const model = new ScriptedModel([toolUse('inspect_cache_status', {}), json({ answer: 'half cached' })]);
    const agent = createAgent({ name: 'ops', client: model.client(), tools: introspectionTools({ cache: classifier }) });
    const workflow = createWorkflow({ name: 'triage' }, async (ctx) => {
      await ctx.step('first', () => classifier.prompt(ask('Classify: crash on start')));
      await ctx.step('again', () => classifier.prompt(ask('Classify: crash on start')));
      return ctx.step('status', () => agent.prompt(ask('How is the cache doing?')));
    });
    await workflow.run();

    const answer = sentAnswer(model, 1);
    expect(answer).toMatchObject({ configured: true, metrics: { hits: 1, misses: 1, sets: 1, size: 1 }, hitRate: 0.5 });
    const counts = { hits: 1, misses: 1, byAgent: { classifier: { hits: 1, misses: 1 } }, missReasons: { absent: 1 } };
    expect(answer.events).toEqual({ workflow: counts, run: counts });
  });

  it('without a cache: configured false, a clear message, and the event counts', async () => {
    const model = new ScriptedModel([toolUse('inspect_cache_status', {}), json({ answer: 'none' })]);
    const agent = createAgent({ name: 'ops', client: model.client(), tools: introspectionTools() });
    await createWorkflow({ name: 'wf' }, (ctx) => ctx.step('status', () => agent.prompt(ask('Cache?')))).run();
    const answer = sentAnswer(model, 1);
    expect(answer.configured).toBe(false);
    expect(answer.message).toMatch(/No cache is configured/);
    const none = { hits: 0, misses: 0, byAgent: {}, missReasons: {} };
    expect(answer.events).toEqual({ workflow: none, run: none });
  });

  it('an agent without its own cache store: says its default cache is private', async () => {
    const plain = createAgent({ name: 'plain', client: new ScriptedModel([]).client(), enableCache: true });
    const model = new ScriptedModel([toolUse('inspect_cache_status', {}), json({ answer: 'unknown' })]);
    const agent = createAgent({ name: 'ops', client: model.client(), tools: introspectionTools({ cache: plain }) });
    await createWorkflow({ name: 'wf' }, (ctx) => ctx.step('status', () => agent.prompt(ask('Cache?')))).run();
    expect(sentAnswer(model, 1)).toMatchObject({ configured: false, message: expect.stringContaining('Agent "plain"') });
  });
});
