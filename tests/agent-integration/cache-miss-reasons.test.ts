import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  type Agent,
  type AgentConfig,
  type AgentResult,
  type CacheHitEvent,
  type CacheMissEvent,
  type Prompt,
  type PromptOverrides,
  type WorkflowConfig,
  WorkflowTreeDebugger,
} from 'groundswell';
import { cacheIdentity, FileCacheStore, LruCacheStore, type Cache } from 'groundswell/cache';
import { signOffGoal } from 'groundswell/plans';
import { json, ScriptedModel } from 'groundswell/testing';
import { FakeClock } from '../support/fake-clock.js';
import { record } from '../support/events.js';
import { agentModelSync, nativeOnly, keyedModel } from '../support/model-path.js';

const Answer = z.object({ answer: z.string() });

const PLAN = `# Tidy the docs

## Goals

1. [/] goal: every page has a title
  - evidence:
    - docs/a.md: "# Install" (a real heading)
2. [ ] goal: links are not broken
  - evidence: (empty until sign-off)

## Log
`;

interface Called {
  result: AgentResult<unknown>;
  /** The call's one cache event. */
  cache: CacheHitEvent | CacheMissEvent;
  tree: string;
}

/** One `agent.execute()` in a step of a workflow made with `config` (a goal, a plan file, ...). */
async function call(agent: Agent, prompt: Prompt<unknown>, config: Partial<WorkflowConfig> = {}, overrides?: PromptOverrides): Promise<Called> {
  const workflow = createWorkflow({ name: 'run', ...config }, (ctx) => ctx.step('ask', () => agent.execute(prompt, overrides)));
  const recording = record(workflow);
  const result = await workflow.run();
  const events = recording.events.filter(
    (event): event is CacheHitEvent | CacheMissEvent => event.type === 'cacheHit' || event.type === 'cacheMiss',
  );
  expect(events).toHaveLength(1);
  return { result, cache: events[0] as CacheHitEvent | CacheMissEvent, tree: new WorkflowTreeDebugger(workflow).toTreeString() };
}

function expectMiss(called: Called, miss: { reason: string; differs?: string[] }): void {
  expect(called.cache.type).toBe('cacheMiss');
  const { reason, differs } = called.cache as CacheMissEvent;
  expect({ reason, ...(differs !== undefined ? { differs } : {}) }).toEqual(miss);
  expect(called.result.cached).toBe(false);
  expect(called.result.cacheMiss).toMatchObject(miss);
  expect(called.result.cacheMiss?.differs).toEqual(miss.differs);
}

function expectHit(called: Called): void {
  expect(called.cache.type).toBe('cacheHit');
  expect(called.result.cached).toBe(true);
}

const answering = (): ScriptedModel => new ScriptedModel((_request, index) => json({ answer: `answer ${index + 1}` }));

describe('why the cache missed', () => {
  const dirs: string[] = [];
  const newDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-why-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A "process": a new agent and a new FileCacheStore on `dir`, nothing else shared. */
  const agentOn = (dir: string, model: ScriptedModel, settings: Partial<AgentConfig> = {}): Agent =>
    createAgent({ name: 'docs-writer', ...agentModelSync(model), enableCache: true, cache: new FileCacheStore({ dir }), ...settings });

  it('signing off a plan goal moves the ancestry: the second run misses, absent, differs [ancestry]', async () => {
    const dir = newDir();
    const root = newDir();
    const planPath = join(root, 'PLAN.md');
    writeFileSync(planPath, PLAN);
    const model = answering();
    const prompt = (): Prompt<unknown> => createPrompt({ name: 'outline', user: 'Outline the install page.', responseFormat: Answer });

    // The first run ever: nothing stored, so nothing to compare with.
    expectMiss(await call(agentOn(dir, model), prompt(), { plan: planPath }), { reason: 'absent' });
    expectHit(await call(agentOn(dir, model), prompt(), { plan: planPath }));

    const judge = new ScriptedModel([json({ review: 'Read docs/a.md.\nVERDICT: accept\nmissing:' })]);
    await signOffGoal({ planPath, root, judge: agentModelSync(judge) }, 'every page has a title');
    expect(readFileSync(planPath, 'utf8')).toContain('1. [x] goal: every page has a title');

    const second = await call(agentOn(dir, model), prompt(), { plan: planPath });
    expectMiss(second, { reason: 'absent', differs: ['ancestry'] });
    expect(second.tree).toMatch(/docs-writer: outline \[agentPrompt\].*\(cache miss: ancestry differs\)/);
    expect(model.requests).toHaveLength(2);
  });

  it("ignore: ['ancestry'] keeps the key across the sign-off: the second run hits", async () => {
    const dir = newDir();
    const root = newDir();
    const planPath = join(root, 'PLAN.md');
    writeFileSync(planPath, PLAN);
    const model = answering();
    const settings = { enableCache: { ignore: ['ancestry'] } } as const;
    const prompt = (): Prompt<unknown> => createPrompt({ name: 'outline', user: 'Outline the install page.', responseFormat: Answer });
    expectMiss(await call(agentOn(dir, model, settings), prompt(), { plan: planPath }), { reason: 'absent' });
    const judge = new ScriptedModel([json({ review: 'Read docs/a.md.\nVERDICT: accept\nmissing:' })]);
    await signOffGoal({ planPath, root, judge: agentModelSync(judge) }, 'every page has a title');
    const second = await call(agentOn(dir, model, settings), prompt(), { plan: planPath });
    expectHit(second);
    expect(second.result.value).toEqual({ answer: 'answer 1' });
    expect(model.requests).toHaveLength(1);
  });

  it('ignore on the prompt works the same; its entry header lists the ignored part', async () => {
    const dir = newDir();
    const model = answering();
    const prompt = (): Prompt<unknown> =>
      createPrompt({ name: 'outline', user: 'Outline.', responseFormat: Answer, enableCache: { ignore: ['ancestry'] } });
    const first = await call(agentOn(dir, model), prompt(), { goal: 'Goal A' });
    expectMiss(first, { reason: 'absent' });
    expectHit(await call(agentOn(dir, model), prompt(), { goal: 'Goal B' }));
    const header = await new FileCacheStore({ dir }).latestEntry(cacheIdentity('docs-writer', 'outline'));
    expect(header?.ignored).toEqual(['ancestry']);
    // A call that counts the ancestry again does not use that entry, and says why.
    const counted = createPrompt({ name: 'outline', user: 'Outline.', responseFormat: Answer });
    expectMiss(await call(agentOn(dir, model), counted, { goal: 'Goal B' }), { reason: 'absent', differs: ['ancestry'] });
  });

  it("an agent's plan file is part of the key: an edit misses with differs [plan]; ignoring it hits", async () => {
    const root = newDir();
    const planPath = join(root, 'PLAN.md');
    writeFileSync(planPath, PLAN);
    const model = answering();
    const store = new LruCacheStore();
    const worker = (ignore: Array<'plan'>): Agent =>
      createAgent({ name: 'worker', ...agentModelSync(model), cache: store, plan: { path: planPath }, enableCache: { ignore } });
    const prompt = createPrompt({ name: 'tidy', user: 'Tidy.', responseFormat: Answer });
    expectMiss(await call(worker([]), prompt), { reason: 'absent' });
    expectMiss(await call(worker(['plan']), prompt), { reason: 'absent', differs: ['plan'] });
    writeFileSync(planPath, `${PLAN}- a log line\n`);
    expectMiss(await call(worker([]), prompt), { reason: 'absent', differs: ['plan'] });
    expectHit(await call(worker(['plan']), prompt));
    // The plan really went along with the request the key covers.
    expect(JSON.stringify(model.requests[0]?.body.system)).toContain('every page has a title');
  });

  // A model id in a prompt picks an Anthropic model: the provider path has its model object.
  nativeOnly('names every part that changed, for the same agent and prompt name', async () => {
    const model = answering();
    const agent = createAgent({ name: 'triage', ...agentModelSync(model), enableCache: true, system: 'Be brief.' });
    const prompt = (user: string, data: Record<string, unknown>, settings: Partial<Parameters<typeof createPrompt>[0]> = {}): Prompt<unknown> =>
      createPrompt({ name: 'classify', user, data, responseFormat: Answer, ...settings });
    expectMiss(await call(agent, prompt('Classify.', { id: 1 })), { reason: 'absent' });
    const userChanged = await call(agent, prompt('Classify!', { id: 1 }));
    expectMiss(userChanged, { reason: 'absent', differs: ['user'] });
    expectMiss(await call(agent, prompt('Classify!', { id: 2 }, { model: 'claude-haiku-4-5', temperature: 0.5 })), {
      reason: 'absent',
      differs: ['data', 'model', 'settings'],
    });
    // A first-time miss has no note; a changed part does.
    expect(userChanged.tree).toContain('(cache miss: user differs)');
    expectMiss(await call(agent, prompt('Classify!', { id: 2 }, { system: 'Be long.', responseFormat: z.object({ answer: z.string().min(1) }) })), {
      reason: 'absent',
      // Compared with the newest entry (the haiku one): model and temperature went back to the defaults.
      differs: ['system', 'schema', 'model', 'settings'],
    });
    // Another prompt name: not the same prompt, so nothing to compare with.
    expectMiss(await call(agent, createPrompt({ name: 'other', user: 'Classify?', data: { id: 1 }, responseFormat: Answer })), { reason: 'absent' });
  });

  it('an entry past its time to live is a miss with reason expired (file store and memory store)', async () => {
    for (const make of [(clock: FakeClock) => new FileCacheStore({ dir: newDir(), clock, ttlMs: 1000 }), (clock: FakeClock) => new LruCacheStore({ clock, ttlMs: 1000 })]) {
      const clock = new FakeClock();
      const model = answering();
      const agent = createAgent({ name: 'short-lived', ...agentModelSync(model), enableCache: true, cache: make(clock) });
      const prompt = createPrompt({ user: 'Weather?', responseFormat: Answer });
      expectMiss(await call(agent, prompt), { reason: 'absent' });
      expectHit(await call(agent, prompt));
      clock.advance(1001);
      const expired = await call(agent, prompt);
      expectMiss(expired, { reason: 'expired' });
      expect(expired.tree).toContain('(cache miss: expired)');
      expect(expired.result.value).toEqual({ answer: 'answer 2' });
      expectHit(await call(agent, prompt));
    }
  });

  it('enableCache false on a prompt or a call of a caching agent is a miss with reason disabled, no key, no lookup', async () => {
    const model = answering();
    const store = new LruCacheStore();
    const agent = createAgent({ name: 'mixed', ...agentModelSync(model), enableCache: true, cache: store });
    const prompt = createPrompt({ user: 'Now?', responseFormat: Answer });
    const offPrompt = createPrompt({ user: 'Now?', responseFormat: Answer, enableCache: false });
    for (const called of [await call(agent, offPrompt), await call(agent, prompt, {}, { enableCache: false })]) {
      expectMiss(called, { reason: 'disabled' });
      expect(called.cache.key).toBeUndefined();
    }
    expect(store.metrics()).toMatchObject({ hits: 0, misses: 0, sets: 0 });
    // An agent that caches by default (its own in-memory store) reports it too.
    const byDefault = createAgent({ name: 'default-store', ...agentModelSync(model), enableCache: true });
    expectMiss(await call(byDefault, offPrompt), { reason: 'disabled' });
  });

  it('enableCache { refresh: true } skips the read (bypassed, with the key), asks the model and stores the fresh answer', async () => {
    const model = answering();
    const store = new LruCacheStore();
    const agent = createAgent({ name: 'fresh', ...agentModelSync(model), enableCache: true, cache: store });
    const prompt = createPrompt({ user: 'News?', responseFormat: Answer });
    const first = await call(agent, prompt);
    expectMiss(first, { reason: 'absent' });
    const refreshed = await call(agent, prompt, {}, { enableCache: { refresh: true } });
    expectMiss(refreshed, { reason: 'bypassed' });
    expect(refreshed.cache.key).toBe(first.cache.key);
    expect(refreshed.result.value).toEqual({ answer: 'answer 2' });
    const after = await call(agent, prompt);
    expectHit(after);
    expect(after.result.value).toEqual({ answer: 'answer 2' });
    expect(store.metrics()).toMatchObject({ hits: 1, misses: 1, sets: 2, size: 1 });
  });

  it('a store without lookup/latestEntry (a custom one) still works: every miss is absent, without differs', async () => {
    const inner = new LruCacheStore();
    const custom: Cache = {
      get: (key) => inner.get(key),
      set: (key, value, options) => inner.set(key, value, options),
      bust: (key) => inner.bust(key),
      bustPrefix: (prefix) => inner.bustPrefix(prefix),
      metrics: () => inner.metrics(),
    };
    const model = answering();
    const agent = createAgent({ name: 'custom', ...agentModelSync(model), enableCache: true, cache: custom });
    expectMiss(await call(agent, createPrompt({ name: 'p', user: 'One', responseFormat: Answer })), { reason: 'absent' });
    expectMiss(await call(agent, createPrompt({ name: 'p', user: 'Two', responseFormat: Answer })), { reason: 'absent' });
    expectHit(await call(agent, createPrompt({ name: 'p', user: 'Two', responseFormat: Answer })));
  });

  it('a store whose latestEntry throws costs the diagnosis, never the call', async () => {
    const store = new LruCacheStore();
    store.latestEntry = () => Promise.reject(new Error('index offline'));
    const model = answering();
    const agent = createAgent({ name: 'flaky-index', ...agentModelSync(model), enableCache: true, cache: store });
    const miss = await call(agent, createPrompt({ user: 'Hello', responseFormat: Answer }));
    expectMiss(miss, { reason: 'absent' });
    expect(miss.result.value).toEqual({ answer: 'answer 1' });
  });
});

describe('stored entries: headers without secrets, old entries, damaged headers', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const newDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-header-'));
    dirs.push(dir);
    return dir;
  };
  const SECRET = 'tok-9Xc4Qm2Lw7Ep5Rz1Vb8Nd3Kf6Hs0Jg-live';

  it('the header names agent, prompt and model, with part fingerprints, and no secret of the request anywhere on disk', async () => {
    const dir = newDir();
    const model = new ScriptedModel([json({ answer: 'rotated' })]);
    const agent = createAgent({
      name: 'ops',
      ...agentModelSync(model, { model: 'claude-sonnet-5-5' }),
      env: { API_TOKEN: SECRET },
      enableCache: true,
      cache: new FileCacheStore({ dir }),
      system: 'You run operations.',
    });
    // The secret is in the user message (so in the default prompt name) and in the data.
    const prompt = createPrompt({ user: `Rotate ${SECRET}`, data: { token: SECRET, region: 'eu' }, responseFormat: Answer });
    const miss = await call(agent, prompt);
    expectMiss(miss, { reason: 'absent' });
    expect(JSON.stringify(model.requests[0]?.body)).toContain(SECRET);

    const names = readdirSync(dir);
    expect(names).toHaveLength(2);
    // Not even the part of it a 37-character default name would keep.
    for (const name of names) expect(readFileSync(join(dir, name), 'utf8')).not.toContain(SECRET.slice(0, 12));
    const entry = names.find((name) => name.endsWith('.json')) ?? '';
    const text = readFileSync(join(dir, entry), 'utf8');
    const stored = JSON.parse(text) as { header: Record<string, unknown> };
    expect(Object.keys(stored)[0]).toBe('header');
    expect(stored.header).toMatchObject({ agent: 'ops', prompt: 'Rotate ***', model: keyedModel('claude-sonnet-5-5'), ignored: [] });
    expect(Object.keys(stored.header.parts as object)).toEqual(['system', 'ancestry', 'guidance', 'plan', 'user', 'data', 'schema', 'model', 'tools', 'settings']);
    for (const fingerprint of Object.values(stored.header.parts as object)) expect(fingerprint).toMatch(/^[0-9a-f]{16}$/);
    // No request text beyond the (masked) prompt name: not the system prompt, not the data.
    for (const fragment of ['You run operations', 'region', 'eu"']) expect(text).not.toContain(fragment);
  });

  it('an entry written before headers existed (no header, no index) still hits', async () => {
    const dir = newDir();
    const prompt = (): Prompt<unknown> => createPrompt({ user: 'Capital of France?', responseFormat: Answer });
    const recorder = new ScriptedModel([json({ answer: 'Paris' })]);
    const first = await call(createAgent({ name: 'geo', ...agentModelSync(recorder), enableCache: true, cache: new FileCacheStore({ dir }) }), prompt());
    expectMiss(first, { reason: 'absent' });
    // Rewrite it as the previous version wrote it: no header, no index file.
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (name.endsWith('.idx')) rmSync(path);
      else {
        const { header: _header, ...old } = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
        writeFileSync(path, `${JSON.stringify(old, null, 2)}\n`);
      }
    }
    const offline = new ScriptedModel([]);
    const replay = await call(createAgent({ name: 'geo', ...agentModelSync(offline), enableCache: true, cache: new FileCacheStore({ dir }) }), prompt());
    expectHit(replay);
    expect(replay.cache.key).toBe(first.cache.key);
    expect(replay.result.value).toEqual({ answer: 'Paris' });
    expect(offline.requests).toHaveLength(0);
  });

  it.each([
    ['a number', 7],
    ['a string of a megabyte', 'x'.repeat(1_000_000)],
    ['parts holding text', { agent: 'geo', prompt: 'p', identity: '0'.repeat(64), model: 'm', parts: { data: 'Paris is the capital' }, ignored: [], createdAt: 1 }],
  ])('a hostile header (%s) is a damaged miss: the model is asked, the entry rewritten, nothing crashes', async (_label, hostile) => {
    const dir = newDir();
    const model = answering();
    const agent = createAgent({ name: 'geo', ...agentModelSync(model), enableCache: true, cache: new FileCacheStore({ dir }) });
    const prompt = createPrompt({ name: 'capital', user: 'Capital of France?', responseFormat: Answer });
    expectMiss(await call(agent, prompt), { reason: 'absent' });
    const entry = readdirSync(dir).find((name) => name.endsWith('.json')) ?? '';
    const data = JSON.parse(readFileSync(join(dir, entry), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, entry), JSON.stringify({ ...data, header: hostile }));
    const damaged = await call(agent, prompt);
    expectMiss(damaged, { reason: 'damaged' });
    expect(damaged.result.value).toEqual({ answer: 'answer 2' });
    expectHit(await call(agent, prompt));
  });
});
