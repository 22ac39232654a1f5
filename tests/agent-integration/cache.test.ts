import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  defineTool,
  StructuredOutputError,
  WorkflowTreeDebugger,
  type Agent,
  type AgentResult,
  type CacheHitEvent,
  type CacheMissEvent,
  type CacheMissReason,
  type AgentPromptEndEvent,
  type Prompt,
  type PromptOverrides,
  type WorkflowNode,
} from 'groundswell';
import { cacheKeyPrefix, FileCacheStore, LruCacheStore, type Cache } from 'groundswell/cache';
import { json, malformedJson, ScriptedModel } from 'groundswell/testing';
import { createInProcessServer } from '../mcp/fixtures/in-process-server.js';
import { eventsOfType } from '../support/events.js';
import { errorOf, onlyNodeOfKind, runFlow, stillRunning, valueOf } from '../support/integration-helpers.js';
import { agentModelSync, nativeOnly, providerPath } from '../support/model-path.js';

const Answer = z.object({ answer: z.string() });
const ZERO = { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };

/** Answers every request with `{ answer: "<prefix> <request number>" }`, so each fetch is visible in the value. */
function numberedModel(prefix = 'answer'): ScriptedModel {
  return new ScriptedModel((_request, index) => json({ answer: `${prefix} ${index + 1}` }));
}

interface Asked<T> {
  result: AgentResult<T>;
  /** The cache event of the call: exactly one hit or miss. */
  cache: CacheHitEvent | CacheMissEvent;
  end: AgentPromptEndEvent;
  node: WorkflowNode;
  tree: string;
}

/** One `agent.execute()` in a step of a fresh workflow, with the call's cache and end events. */
async function ask<T>(agent: Agent, prompt: Prompt<T>, overrides?: PromptOverrides): Promise<Asked<T>> {
  const run = await runFlow((ctx) => ctx.step('ask', () => agent.execute(prompt, overrides)));
  const result = valueOf(run.outcome);
  const node = onlyNodeOfKind(run.workflow.node, 'agentPrompt');
  const cacheEvents = node.events.filter(
    (event): event is CacheHitEvent | CacheMissEvent => event.type === 'cacheHit' || event.type === 'cacheMiss',
  );
  expect(cacheEvents, 'one cache event per cached call').toHaveLength(1);
  const ends = eventsOfType(node.events, 'agentPromptEnd');
  expect(ends).toHaveLength(1);
  expect(stillRunning(run.workflow.node)).toEqual([]);
  return {
    result,
    cache: cacheEvents[0] as CacheHitEvent | CacheMissEvent,
    end: ends[0] as AgentPromptEndEvent,
    node,
    tree: new WorkflowTreeDebugger(run.workflow).toTreeString(),
  };
}

/** Checks a miss for `reason`, that the result says what the event said, and returns its key. */
function expectMiss(asked: Asked<unknown>, reason: CacheMissReason): string {
  expect(asked.cache).toMatchObject({ type: 'cacheMiss', reason });
  expect(asked.result.cached).toBe(false);
  expect(asked.end.cached).toBe(false);
  const { type: _type, id: _id, nodeId: _node, workflowId: _wf, timestamp: _at, agentName: _agent, ...info } = asked.cache as CacheMissEvent;
  expect(asked.result.cacheMiss).toEqual(info);
  return keyOf(asked.cache);
}

function expectHit(asked: Asked<unknown>): string {
  expect(asked.cache.type).toBe('cacheHit');
  expect(asked.result.cached).toBe(true);
  expect(asked.result.cacheMiss).toBeUndefined();
  expect(asked.end.cached).toBe(true);
  return keyOf(asked.cache);
}

function keyOf(event: CacheHitEvent | CacheMissEvent): string {
  expect(event.key).toMatch(/^[^:]+:[0-9a-f]{64}$/);
  return event.key as string;
}

describe('agent cache: hit and miss', () => {
  it('misses (absent) the first time, then hits the identical prompt without any request', async () => {
    const model = numberedModel();
    const agent = createAgent({ name: 'cached', ...agentModelSync(model), enableCache: true });
    const prompt = createPrompt({ user: 'What is up?', data: { id: 1 }, responseFormat: Answer });

    const first = await ask(agent, prompt);
    const key = expectMiss(first, 'absent');
    expect(key.startsWith(cacheKeyPrefix('cached'))).toBe(true);
    expect(first.result.value).toEqual({ answer: 'answer 1' });
    expect(first.result.usage.inputTokens).toBeGreaterThan(0);
    expect(first.end.usage.inputTokens).toBeGreaterThan(0);
    expect(model.requests).toHaveLength(1);

    // A new Prompt instance with the same content is the same request.
    const again = createPrompt({ user: 'What is up?', data: { id: 1 }, responseFormat: Answer });
    const second = await ask(agent, again);
    expect(expectHit(second)).toBe(key);
    expect(model.requests).toHaveLength(1);
    expect(second.result.value).toEqual({ answer: 'answer 1' });
    expect(second.result.usage).toEqual(ZERO);
    expect(second.result.turns).toBe(0);
    expect(second.result.toolCalls).toEqual([]);
    expect(second.end).toMatchObject({ status: 'completed', cached: true, usage: ZERO, turns: 0 });
    // A hit is still a node of the tree, completed, marked as a hit by the debugger.
    expect(second.node.status).toBe('completed');
    expect(second.node.children).toEqual([]);
    expect(second.tree).toMatch(/✓ cached: What is up\? \[agentPrompt\].*\(cache hit\)/);
    model.assertComplete();
  });

  it('hands back the value validated by the schema on a hit (defaults applied again)', async () => {
    const schema = z.object({ title: z.string(), priority: z.number().default(3) });
    const model = new ScriptedModel([json({ title: 'Fix login' })]);
    const agent = createAgent({ name: 'validated', ...agentModelSync(model), enableCache: true });
    const prompt = createPrompt({ user: 'Triage', responseFormat: schema });
    expect((await agent.execute(prompt)).value).toEqual({ title: 'Fix login', priority: 3 });
    const hit = await agent.execute(prompt);
    expect(hit).toMatchObject({ cached: true, value: { title: 'Fix login', priority: 3 }, usage: ZERO });
    expect(model.requests).toHaveLength(1);
    model.assertComplete();
  });

  it('works outside a workflow too (no tree, same cache)', async () => {
    const model = numberedModel();
    const agent = createAgent({ name: 'loose', ...agentModelSync(model), enableCache: true });
    const prompt = createPrompt({ user: 'Outside', responseFormat: Answer });
    expect(await agent.prompt(prompt)).toEqual({ answer: 'answer 1' });
    expect(await agent.prompt(prompt)).toEqual({ answer: 'answer 1' });
    expect(model.requests).toHaveLength(1);
  });

  it('does not cache when enableCache is off (the default): a miss with reason disabled when a store is configured', async () => {
    const model = numberedModel();
    const store = new LruCacheStore();
    const agent = createAgent({ name: 'uncached', ...agentModelSync(model), cache: store });
    const prompt = createPrompt({ user: 'Again and again', responseFormat: Answer });
    expect(await agent.prompt(prompt)).toEqual({ answer: 'answer 1' });
    expect(await agent.prompt(prompt)).toEqual({ answer: 'answer 2' });
    // The store is never touched: no key, no lookup.
    expect(store.metrics()).toMatchObject({ hits: 0, misses: 0, sets: 0, size: 0 });
    const run = await runFlow((ctx) => ctx.step('ask', () => agent.execute(prompt)));
    expect(eventsOfType(run.recording.events, 'cacheHit')).toEqual([]);
    const misses = eventsOfType(run.recording.events, 'cacheMiss');
    expect(misses).toHaveLength(1);
    expect(misses[0]).toMatchObject({ agentName: 'uncached', reason: 'disabled' });
    expect(misses[0]?.key).toBeUndefined();
    expect(valueOf(run.outcome).cacheMiss).toEqual({ reason: 'disabled' });
    expect(store.metrics()).toMatchObject({ hits: 0, misses: 0, sets: 0, size: 0 });
  });

  it('an agent with neither a store nor enableCache reports nothing about the cache', async () => {
    const model = numberedModel();
    const agent = createAgent({ name: 'plain', ...agentModelSync(model) });
    const run = await runFlow((ctx) => ctx.step('ask', () => agent.execute(createPrompt({ user: 'Hi', responseFormat: Answer }))));
    expect(eventsOfType(run.recording.events, 'cacheMiss')).toEqual([]);
    expect(valueOf(run.outcome).cacheMiss).toBeUndefined();
  });

  it('does not store a failed answer: the next call is a miss again', async () => {
    const model = new ScriptedModel([malformedJson(), json({ answer: 'fixed' })]);
    const store = new LruCacheStore();
    const agent = createAgent({ name: 'flaky', ...agentModelSync(model), enableCache: true, cache: store });
    const prompt = createPrompt({ user: 'Try', responseFormat: Answer });
    const failed = await runFlow((ctx) => ctx.step('ask', () => agent.prompt(prompt)));
    expect((errorOf(failed.outcome) as Error).cause).toBeInstanceOf(StructuredOutputError);
    expect(store.metrics()).toMatchObject({ sets: 0, size: 0 });
    const retry = await ask(agent, prompt);
    expectMiss(retry, 'absent');
    expect(retry.result.value).toEqual({ answer: 'fixed' });
    model.assertComplete();
  });
});

/** One call: a prompt and optional call overrides. */
interface Call {
  prompt: Prompt<unknown>;
  overrides?: PromptOverrides;
}

const BaseSchema = z.object({ answer: z.string().min(1) });
const base = (settings: Partial<Parameters<typeof createPrompt>[0]> = {}): Prompt<unknown> =>
  createPrompt({ user: 'What is up?', data: { id: 1 }, responseFormat: BaseSchema, ...settings });
const lookup = defineTool({ name: 'lookup', description: 'Looks a word up.', input: z.object({ word: z.string() }), execute: () => 'found' });
const hasText = (a: { answer: string }): boolean => a.answer.trim() !== '';
const hasNoDigits = (a: { answer: string }): boolean => !/\d/.test(a.answer);

// Every case: prime the base call, check it hits, then the varied call must miss with a new key.
const keyCases: ReadonlyArray<{ name: string; base?: () => Call; varied: () => Call }> = [
  { name: 'user', varied: () => ({ prompt: base({ user: 'What is down?' }) }) },
  { name: 'data', varied: () => ({ prompt: base({ data: { id: 2 } }) }) },
  { name: 'system (prompt level)', varied: () => ({ prompt: base({ system: 'You answer in French.' }) }) },
  { name: 'model', varied: () => ({ prompt: base({ model: 'claude-haiku-4-5' }) }) },
  { name: 'maxTokens', varied: () => ({ prompt: base({ maxTokens: 1234 }) }) },
  { name: 'temperature', varied: () => ({ prompt: base({ temperature: 0.2 }) }) },
  { name: 'stop', varied: () => ({ prompt: base({ stop: ['END'] }) }) },
  { name: 'tools', varied: () => ({ prompt: base({ tools: [lookup] }) }) },
  {
    name: 'mcps',
    varied: () => ({ prompt: base({ mcps: [{ name: 'kb', transport: 'in-process', server: createInProcessServer().server }] }) }),
  },
  { name: 'skills', varied: () => ({ prompt: base({ skills: [{ name: 'terse', description: 'Short answers', content: 'Be terse.' }] }) }) },
  { name: 'schema check min(1) → min(5)', varied: () => ({ prompt: base({ responseFormat: z.object({ answer: z.string().min(5) }) }) }) },
  {
    name: 'schema refine (a different function)',
    base: () => ({ prompt: base({ responseFormat: BaseSchema.refine(hasText) }) }),
    varied: () => ({ prompt: base({ responseFormat: BaseSchema.refine(hasNoDigits) }) }),
  },
  { name: 'call override: temperature', varied: () => ({ prompt: base(), overrides: { temperature: 0.7 } }) },
  { name: 'call override: system', varied: () => ({ prompt: base(), overrides: { system: 'Override system.' } }) },
];

describe('agent cache: the key', () => {
  // A model id in a prompt picks an Anthropic model: the provider path has its model object.
  it.each(keyCases.filter((c) => !(providerPath && c.name === 'model')))('changes when $name changes (miss, a new request, then a hit)', async (c) => {
    // An answer that satisfies every schema variant (no digits, 5+ characters).
    const model = new ScriptedModel(() => json({ answer: 'hello world' }));
    const agent = createAgent({
      name: 'keyed',
      ...agentModelSync(model),
      enableCache: true,
      system: 'You answer.',
      maxTokens: 500,
    });
    const baseCall = c.base?.() ?? { prompt: base() };
    const primed = expectMiss(await ask(agent, baseCall.prompt, baseCall.overrides), 'absent');
    expect(expectHit(await ask(agent, baseCall.prompt, baseCall.overrides))).toBe(primed);
    expect(model.requests).toHaveLength(1);

    const variedCall = c.varied();
    const varied = expectMiss(await ask(agent, variedCall.prompt, variedCall.overrides), 'absent');
    expect(varied).not.toBe(primed);
    expect(model.requests).toHaveLength(2);
    expect(expectHit(await ask(agent, variedCall.prompt, variedCall.overrides))).toBe(varied);
    expect(model.requests).toHaveLength(2);
    model.assertComplete();
  });

  // Model ids in the layers pick Anthropic models: the provider path has its model object.
  nativeOnly('the varied field really reached the request (what the key covers is what was sent)', async () => {
    const model = new ScriptedModel(() => json({ answer: 'hello world' }));
    const agent = createAgent({ name: 'keyed', ...agentModelSync(model), enableCache: true, system: 'You answer.' });
    await agent.prompt(base({ temperature: 0.2, stop: ['END'], maxTokens: 1234, model: 'claude-haiku-4-5' }));
    expect(model.requests[0]?.body).toMatchObject({
      temperature: 0.2,
      stop_sequences: ['END'],
      max_tokens: 1234,
      model: 'claude-haiku-4-5',
      system: 'You answer.',
    });
  });

  // Model ids in the layers pick Anthropic models: the provider path has its model object.
  nativeOnly('counts prompt-level overrides, not the agent defaults they replace', async () => {
    const model = numberedModel();
    const store = new LruCacheStore();
    // Same name (the key namespace) and store, every default different.
    const first = createAgent({
      name: 'shared',
      ...agentModelSync(model),
      enableCache: true,
      cache: store,
      system: 'Agent one.',
      model: 'claude-opus-4-1',
      maxTokens: 100,
      temperature: 0.1,
      stop: ['ONE'],
      skills: [{ name: 'one', content: 'First skill.' }],
    });
    const second = createAgent({
      name: 'shared',
      ...agentModelSync(model),
      enableCache: true,
      cache: store,
      system: 'Agent two.',
      model: 'claude-haiku-4-5',
      maxTokens: 900,
      temperature: 0.9,
      stop: ['TWO'],
      skills: [{ name: 'two', content: 'Second skill.' }],
    });
    const overriding = (): Prompt<unknown> =>
      createPrompt({
        user: 'Which agent?',
        responseFormat: Answer,
        system: 'Prompt system.',
        model: 'claude-sonnet-5-5',
        maxTokens: 300,
        temperature: 0.5,
        stop: ['PROMPT'],
        skills: [],
      });
    const key = expectMiss(await ask(first, overriding()), 'absent');
    const hit = await ask(second, overriding());
    expect(expectHit(hit)).toBe(key);
    expect(hit.result.value).toEqual({ answer: 'answer 1' });
    expect(model.requests).toHaveLength(1);
  });

  // Model ids in the layers pick Anthropic models: the provider path has its model object.
  nativeOnly('counts call overrides, and a prompt setting beats a call override (the override then does not split the key)', async () => {
    const model = numberedModel();
    const agent = createAgent({ name: 'cascade', ...agentModelSync(model), enableCache: true, system: 'Agent system.' });
    const prompt = createPrompt({ user: 'Cascade', responseFormat: Answer, system: 'Prompt system.' });
    const key = expectMiss(await ask(agent, prompt), 'absent');
    // The prompt sets system, so this override is ignored: same request, same key.
    expect(expectHit(await ask(agent, prompt, { system: 'Call system.' }))).toBe(key);
    // An override of a field the prompt leaves alone is part of the request.
    expectMiss(await ask(agent, prompt, { model: 'claude-haiku-4-5' }), 'absent');
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]?.body).toMatchObject({ model: 'claude-haiku-4-5', system: 'Prompt system.' });
  });

  it('the same prompt object asked again gets the key a fresh copy of it gets, whatever changed around it in between', async () => {
    const model = new ScriptedModel(() => json({ answer: 'hello world' }));
    // Changed in place between calls, as a careless caller might: the skill, the tool list, a tool
    // that is not frozen (defineTool's are).
    const skill = { name: 'style', content: 'Be brief.' };
    const tools = [lookup];
    const loose = { ...lookup };
    const agent = createAgent({ name: 'reused', ...agentModelSync(model), enableCache: true, system: 'You answer.', skills: [skill], tools });
    const other = createAgent({ name: 'reused', ...agentModelSync(model), enableCache: true, system: 'Another system.' });
    const withLoose = createAgent({ name: 'reused', ...agentModelSync(model), enableCache: true, tools: [loose] });
    const prompt = base();
    const keyOfCall = async (who: Agent, asked: Prompt<unknown>, overrides?: PromptOverrides): Promise<string> =>
      keyOf((await ask(who, asked, overrides)).cache);
    const keys: string[] = [];
    const check = async (who: Agent, overrides?: PromptOverrides): Promise<void> => {
      const reused = await keyOfCall(who, prompt, overrides);
      expect(reused).toBe(await keyOfCall(who, base(), overrides));
      keys.push(reused);
    };
    await check(agent);
    await check(agent, { temperature: 0.3 });
    await check(agent, { stop: ['END'] });
    await check(agent, { maxTokens: 77 });
    await check(other);
    await check(agent);
    skill.content = 'Be very brief.';
    await check(agent);
    tools.push(defineTool({ name: 'define', description: 'Defines a word.', input: z.object({ word: z.string() }), execute: () => 'meaning' }));
    await check(agent);
    agent.setGoalAncestry({ goal: 'A goal in the system prompt' });
    await check(agent);
    await check(withLoose);
    loose.description = 'Looks a word up, carefully.';
    await check(withLoose);
    // Every call a new key, but the sixth: the first call's inputs again.
    expect(keys[5]).toBe(keys[0]);
    expect(new Set(keys).size).toBe(keys.length - 1);
  });
});

describe('agent cache: stored values', () => {
  it('busts a cached value that no longer validates, reports a miss (invalid) and refetches, never returning it', async () => {
    const model = numberedModel();
    const store = new LruCacheStore();
    const agent = createAgent({ name: 'guarded', ...agentModelSync(model), enableCache: true, cache: store });
    const prompt = createPrompt({ user: 'Guarded', responseFormat: Answer });
    const key = expectMiss(await ask(agent, prompt), 'absent');

    // Corrupt the entry under the very key the agent uses.
    const stored = await store.get(key);
    expect(stored?.value).toEqual({ answer: 'answer 1' });
    await store.set(key, { value: { answer: 42 }, model: 'claude-sonnet-5-5', stopReason: 'end_turn', usage: ZERO, storedAt: 1 });
    const bustsBefore = store.metrics().busts;

    const refetched = await ask(agent, prompt);
    expect(expectMiss(refetched, 'invalid')).toBe(key);
    expect(refetched.result.value).toEqual({ answer: 'answer 2' });
    expect(refetched.result.usage.inputTokens).toBeGreaterThan(0);
    expect(model.requests).toHaveLength(2);
    expect(store.metrics().busts).toBe(bustsBefore + 1);
    // The fresh answer replaced the bad one.
    expect((await store.get(key))?.value).toEqual({ answer: 'answer 2' });
    const after = await ask(agent, prompt);
    expectHit(after);
    expect(after.result.value).toEqual({ answer: 'answer 2' });
    expect(model.requests).toHaveLength(2);
  });

  it('caches the raw answer, so schema effects (overwrite) run exactly once on a hit', async () => {
    let runs = 0;
    const schema = z.object({
      n: z.number().overwrite((n) => {
        runs += 1;
        return n * 10;
      }),
    });
    const model = new ScriptedModel([json({ n: 5 })]);
    const store = new LruCacheStore();
    const agent = createAgent({ name: 'scaled', ...agentModelSync(model), enableCache: true, cache: store });
    const prompt = createPrompt({ user: 'Scale', responseFormat: schema });
    const miss = await ask(agent, prompt);
    expect(miss.result.value).toEqual({ n: 50 });
    expect(runs).toBe(1);
    expect((await store.get(keyOf(miss.cache)))?.value).toEqual({ n: 5 });
    const hit = await ask(agent, prompt);
    expectHit(hit);
    expect(hit.result.value).toEqual({ n: 50 });
    expect(runs).toBe(2);
    model.assertComplete();
  });

  it('caches the raw answer of a schema with .transform(), which runs once per hit', async () => {
    let runs = 0;
    const schema = z.object({ words: z.string() }).transform((answer) => {
      runs += 1;
      return { count: answer.words.split(' ').length };
    });
    const model = new ScriptedModel([json({ words: 'one two three' })]);
    const store = new LruCacheStore();
    const agent = createAgent({ name: 'counter', ...agentModelSync(model), enableCache: true, cache: store });
    const prompt = createPrompt({ user: 'Count', responseFormat: schema });
    const miss = await ask(agent, prompt);
    expect(miss.result.value).toEqual({ count: 3 });
    expect((await store.get(keyOf(miss.cache)))?.value).toEqual({ words: 'one two three' });
    const hit = await ask(agent, prompt);
    expectHit(hit);
    expect(hit.result.value).toEqual({ count: 3 });
    expect(runs).toBe(2);
    model.assertComplete();
  });

  it("a hit's agentPromptEnd output is the stored answer as it is now, also when a store's answer is only shallowly frozen", async () => {
    const Listed = z.object({ items: z.array(z.string()) });
    const model = new ScriptedModel([json({ items: ['a'] })]);
    const store = new LruCacheStore();
    // A store of the user's own whose lookup hands out one shared answer, frozen on top only.
    const shared = { response: undefined as unknown };
    const shallow: Cache = {
      get: (key) => store.get(key),
      set: async (key, value, options) => {
        await store.set(key, value, options);
        shared.response = Object.freeze({ ...value, value: Object.freeze({ ...(value.value as object) }) });
      },
      bust: (key) => store.bust(key),
      bustPrefix: (prefix) => store.bustPrefix(prefix),
      metrics: () => store.metrics(),
      lookup: async () => (shared.response === undefined ? { response: undefined, reason: 'absent' } : { response: shared.response as never }),
    };
    const agent = createAgent({ name: 'lister', ...agentModelSync(model), enableCache: true, cache: shallow });
    const prompt = createPrompt({ user: 'List', responseFormat: Listed });
    await ask(agent, prompt);
    const first = await ask(agent, prompt);
    expectHit(first);
    expect(first.end.output).toBe('{"items":["a"]}');
    // The nested array is not frozen: it changed, and the next hit shows what is stored now.
    ((shared.response as { value: { items: string[] } }).value.items).push('b');
    const second = await ask(agent, prompt);
    expectHit(second);
    expect(second.result.value).toEqual({ items: ['a', 'b'] });
    expect(second.end.output).toBe('{"items":["a","b"]}');
    // The in-memory store's deep-frozen answer reads the same on every hit.
    const lru = createAgent({ name: 'lister', ...agentModelSync(new ScriptedModel([json({ items: ['c'] })])), enableCache: true, cache: new LruCacheStore() });
    await ask(lru, prompt);
    for (let i = 0; i < 2; i += 1) expect((await ask(lru, prompt)).end.output).toBe('{"items":["c"]}');
  });

  it("bustPrefix(cacheKeyPrefix(name)) drops that agent's entries only", async () => {
    const model = numberedModel();
    const store = new LruCacheStore();
    const make = (name: string): Agent => createAgent({ name, ...agentModelSync(model), enableCache: true, cache: store });
    const alpha = make('alpha');
    const beta = make('beta');
    // A name that starts like "alpha": its keys must not match alpha's prefix.
    const alphaChild = make('alpha:child');
    const prompt = createPrompt({ user: 'Shared question', responseFormat: Answer });
    const keys = [alpha, beta, alphaChild].map(async (agent) => expectMiss(await ask(agent, prompt), 'absent'));
    expect(new Set(await Promise.all(keys)).size).toBe(3);
    expect(store.metrics().size).toBe(3);

    expect(await store.bustPrefix(cacheKeyPrefix('alpha'))).toBe(1);
    expect(store.metrics().size).toBe(2);
    const requests = model.requests.length;
    expectHit(await ask(beta, prompt));
    expectHit(await ask(alphaChild, prompt));
    expect(model.requests).toHaveLength(requests);
    expectMiss(await ask(alpha, prompt), 'absent');
    expect(model.requests).toHaveLength(requests + 1);
  });

  it('concurrent identical prompts on one agent both succeed, and leave one entry', async () => {
    const model = new ScriptedModel(() => json({ answer: 'same' }, { delayMs: 5 }));
    const store = new LruCacheStore();
    const agent = createAgent({ name: 'busy', ...agentModelSync(model), enableCache: true, cache: store });
    const prompt = createPrompt({ user: 'Concurrent', responseFormat: Answer });
    const run = await runFlow((ctx) =>
      Promise.all([ctx.step('one', () => agent.execute(prompt)), ctx.step('two', () => agent.execute(prompt))]),
    );
    const [one, two] = valueOf(run.outcome);
    expect(one?.value).toEqual({ answer: 'same' });
    expect(two?.value).toEqual({ answer: 'same' });
    expect(store.metrics().size).toBe(1);
    expect(stillRunning(run.workflow.node)).toEqual([]);
    const requests = model.requests.length;
    expectHit(await ask(agent, prompt));
    expect(model.requests).toHaveLength(requests);
  });
});

describe('agent cache: FileCacheStore record and replay', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('records once, then a new agent with a new store on the same directory replays offline', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-cache-'));
    dirs.push(dir);
    const schema = z.object({ summary: z.string(), tags: z.array(z.string()) });
    const build = (): Prompt<unknown> => createPrompt({ user: 'Summarise', data: { doc: 7 }, responseFormat: schema });

    const recorder = new ScriptedModel([json({ summary: 'short', tags: ['a', 'b'] })]);
    const recording: Cache = new FileCacheStore({ dir });
    const first = createAgent({ name: 'recorder', ...agentModelSync(recorder), enableCache: true, cache: recording });
    const recorded = await ask(first, build());
    expectMiss(recorded, 'absent');
    recorder.assertComplete();
    expect(readdirSync(dir).filter((name) => name.endsWith('.json'))).toHaveLength(1);

    // "Next process": nothing shared but the directory, and a model with an empty script.
    const offline = new ScriptedModel([]);
    const replaying = createAgent({
      name: 'recorder',
      ...agentModelSync(offline),
      enableCache: true,
      cache: new FileCacheStore({ dir }),
    });
    const replayed = await ask(replaying, build());
    expect(expectHit(replayed)).toBe(recorded.cache.key);
    expect(replayed.result.value).toEqual({ summary: 'short', tags: ['a', 'b'] });
    expect(replayed.result.usage).toEqual(ZERO);
    expect(offline.requests).toHaveLength(0);
    offline.assertComplete();
  });

  it('a store that cannot write does not lose the answer the model gave', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-cache-'));
    dirs.push(dir);
    const store = new FileCacheStore({ dir });
    rmSync(dir, { recursive: true, force: true });
    const model = new ScriptedModel([json({ answer: 'paid for' })]);
    const agent = createAgent({ name: 'unlucky', ...agentModelSync(model), enableCache: true, cache: store });
    const run = await runFlow((ctx) => ctx.step('ask', () => agent.prompt(createPrompt({ user: 'Keep it', responseFormat: Answer }))));
    expect(valueOf(run.outcome)).toEqual({ answer: 'paid for' });
    model.assertComplete();
  });
});

describe('agent cache: streams', () => {
  it('stream() bypasses the cache (decision 0007): it neither reads nor writes it, and says so', async () => {
    const model = numberedModel();
    const store = new LruCacheStore();
    const agent = createAgent({ name: 'streamer', ...agentModelSync(model), enableCache: true, cache: store });
    const prompt = createPrompt({ user: 'Stream me', responseFormat: Answer });

    // A stream first: nothing is stored, and the miss says the cache was bypassed (no key computed).
    const streamed = await runFlow((ctx) => ctx.step('stream', () => agent.stream(prompt).finalValue()));
    expect(valueOf(streamed.outcome)).toEqual({ answer: 'answer 1' });
    expect(model.requests[0]?.stream).toBe(true);
    expect(store.metrics()).toMatchObject({ sets: 0, size: 0, hits: 0, misses: 0 });
    const bypassed = eventsOfType(streamed.recording.events, 'cacheMiss');
    expect(bypassed).toHaveLength(1);
    expect(bypassed[0]).toMatchObject({ reason: 'bypassed' });
    expect(bypassed[0]?.key).toBeUndefined();

    // A prompt then misses, and stores.
    expectMiss(await ask(agent, prompt), 'absent');
    expect(model.requests).toHaveLength(2);

    // A stream after that still asks the model, and does not read the entry.
    const again = await runFlow((ctx) => ctx.step('stream', () => agent.stream(prompt).finalValue()));
    expect(valueOf(again.outcome)).toEqual({ answer: 'answer 3' });
    expect(model.requests).toHaveLength(3);
    expect(eventsOfType(again.recording.events, 'cacheHit')).toEqual([]);
    const end = eventsOfType(again.recording.events, 'agentPromptEnd');
    expect(end).toHaveLength(1);
    expect(end[0]?.cached).toBe(false);
    expect(store.metrics()).toMatchObject({ sets: 1, size: 1 });
  });
});
