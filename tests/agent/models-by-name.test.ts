import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, resume, UsageError, type WorkflowEvent } from 'groundswell';
import { LruCacheStore } from 'groundswell/cache';
import { JournalRunStore } from 'groundswell/durable';
import { json, ScriptedModel, serveChatCompletions, type ChatCompletionsServer } from 'groundswell/testing';

const Source = z.object({ source: z.string() });
const ask = createPrompt({ user: 'Who answers?', responseFormat: Source });

interface Served {
  readonly script: ScriptedModel;
  readonly server: ChatCompletionsServer;
  /** An OpenAI-compatible provider on this server, as a team registers it. */
  readonly provider: ReturnType<typeof createOpenAICompatible>;
}

async function serve(name: string): Promise<Served> {
  const script = new ScriptedModel(() => json({ source: name }));
  const server = await serveChatCompletions(script);
  return { script, server, provider: createOpenAICompatible({ name, baseURL: server.baseURL, supportsStructuredOutputs: true }) };
}

let local: Served;
let other: Served;
beforeEach(async () => {
  local = await serve('local');
  other = await serve('other');
});
afterEach(async () => {
  await local.server.close();
  await other.server.close();
});

/** The `provider/model` of each model request the tree saw (the resolved provider's family). */
function requestsIn(events: readonly WorkflowEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'modelRequest' ? [`${e.provider ?? 'anthropic'}/${e.requestModel}`] : []));
}

describe("models named 'provider/model'", () => {
  it('run on the provider the workflow registered, for agents, prompts and call overrides, in child workflows too', async () => {
    const events: WorkflowEvent[] = [];
    const agent = createAgent({ name: 'asker', model: 'local/llama3.2' });
    const onOther = createPrompt({ user: 'Who answers?', responseFormat: Source, model: 'other/big' });
    const wf = createWorkflow({ name: 'Team', providers: { local: local.provider, other: other.provider } }, async (ctx) => {
      const first = await ctx.step('agent model', () => agent.prompt(ask));
      const second = await ctx.step('prompt model', () => agent.prompt(onOther));
      const third = await ctx.step('override', () => agent.prompt(ask, { model: 'other/small' }));
      const child = createWorkflow({ name: 'Child' }, () => agent.prompt(ask));
      const fourth = await ctx.step('child', () => ctx.spawnWorkflow(child));
      return [first, second, third, fourth].map((a) => a.source);
    });
    wf.addObserver({ onEvent: (event) => events.push(event) });

    expect(await wf.run()).toEqual(['local', 'other', 'other', 'local']);
    expect(local.script.requests.map((r) => r.body.model)).toEqual(['llama3.2', 'llama3.2']);
    expect(other.script.requests.map((r) => r.body.model)).toEqual(['big', 'small']);
    // The tree (and the spans made from it) name the provider the model resolved to.
    expect(requestsIn(events)).toEqual(['local/llama3.2', 'other/big', 'other/small', 'local/llama3.2']);
  });

  it("use the agent's own providers first, and work outside any workflow", async () => {
    const agent = createAgent({ name: 'asker', model: 'team/m', providers: { team: other.provider } });
    expect(await agent.prompt(ask)).toEqual({ source: 'other' });
    const events: WorkflowEvent[] = [];
    const wf = createWorkflow({ name: 'W', providers: { team: local.provider } }, () => agent.prompt(ask));
    wf.addObserver({ onEvent: (event) => events.push(event) });
    expect(await wf.run()).toEqual({ source: 'other' });
    // Registered as "team", the model is the "other" provider's: that is the name the tree gives.
    expect(requestsIn(events)).toEqual(['other/m']);
    expect([local.script.requests.length, other.script.requests.length]).toEqual([0, 2]);
  });

  it('an unknown provider is a UsageError naming the registered ones and the registration, sent nowhere', async () => {
    const anthropic = new ScriptedModel(() => json({ source: 'anthropic' }));
    const agent = createAgent({ name: 'asker', model: 'ollama/llama3.2', client: anthropic.client() });
    const wf = createWorkflow({ name: 'W', providers: { local: local.provider } }, () => agent.prompt(ask));

    const error = await wf.run().catch((e: unknown) => e);
    const cause = (error as { cause?: unknown }).cause ?? error;
    expect(cause).toBeInstanceOf(UsageError);
    expect((cause as Error).message).toBe(
      `Model "ollama/llama3.2" names the provider "ollama", which is not registered (registered: "local"). ` +
        `Register it once on the workflow (or the agent): providers: { ollama: createOpenAICompatible({ name: 'ollama', baseURL: 'http://localhost:11434/v1' }) }.`,
    );
    await expect(createAgent({ name: 'bare', model: 'acme/m' }).prompt(ask)).rejects.toThrow(/names the provider "acme", which is not registered \(none is registered\)/);
    // A misspelt name gets the registered one it most likely meant.
    await expect(createAgent({ name: 'typo', model: 'locl/m', providers: { local: local.provider } }).prompt(ask)).rejects.toThrow(
      /"locl", which is not registered \(registered: "local"\)\. Did you mean "local\/m"\?/,
    );
    expect([anthropic.requests.length, local.script.requests.length]).toEqual([0, 0]);
  });

  it('a plain Anthropic id, and anthropic/<id> with no provider of that name, go to the Anthropic client', async () => {
    const anthropic = new ScriptedModel(() => json({ source: 'anthropic' }));
    const client = anthropic.client();
    expect(await createAgent({ name: 'a', client, model: 'claude-haiku-4-5' }).prompt(ask)).toEqual({ source: 'anthropic' });
    expect(await createAgent({ name: 'b', client, model: 'anthropic/claude-haiku-4-5', providers: { local: local.provider } }).prompt(ask)).toEqual({
      source: 'anthropic',
    });
    expect(anthropic.requests.map((r) => r.body.model)).toEqual(['claude-haiku-4-5', 'claude-haiku-4-5']);
  });

  it('cache under the resolved provider id: a name and the model object share an entry, two providers never do', async () => {
    const cache = new LruCacheStore();
    const providers = { local: local.provider, other: other.provider };
    const named = (model: string) => createAgent({ name: 'asker', model, providers, cache, enableCache: true }).prompt(ask);

    expect(await named('local/m')).toEqual({ source: 'local' });
    expect(await named('other/m')).toEqual({ source: 'other' });
    expect(await createAgent({ name: 'asker', model: local.provider.chatModel('m'), cache, enableCache: true }).prompt(ask)).toEqual({ source: 'local' });
    expect(await named('local/m')).toEqual({ source: 'local' });
    expect([local.script.requests.length, other.script.requests.length]).toEqual([1, 1]);
  });

  it('price usage under the name as written', async () => {
    const pricing = { 'team/m': { inputPerMTok: 1_000_000, outputPerMTok: 0 } };
    const agent = createAgent({ name: 'asker', model: 'team/m', providers: { team: local.provider }, pricing });
    const result = await agent.execute(ask);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.costUsd).toBe(result.usage.inputTokens);
  });

  it('keep a durable run\'s call fingerprint: a run started with the name resumes with the model object', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-models-by-name-'));
    const store = new JournalRunStore({ dir, fsync: 'off' });
    try {
      let crash = true;
      const build = (model: 'name' | 'object') => () =>
        createWorkflow({ name: 'Ask', durable: { store, runId: 'r1' }, providers: { local: local.provider } }, async (ctx) => {
          const agent = createAgent({ name: 'asker', model: model === 'name' ? 'local/m' : local.provider.chatModel('m') });
          const answer = await ctx.step('ask', () => agent.prompt(ask));
          if (crash) throw new Error('crash');
          return answer.source;
        });
      await expect(build('name')().run()).rejects.toThrow(/crash/);
      await store.updateRun('r1', { status: 'running', error: null });
      crash = false;
      expect(await resume('r1', { store, workflows: { Ask: build('object') } })).toBe('local');
      expect(local.script.requests).toHaveLength(1);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuse a providers entry that is not a provider, at construction', () => {
    expect(() => createAgent({ name: 'a', providers: { local: 42 as never } })).toThrow(/providers\.local.*an AI SDK provider/s);
    expect(() => createWorkflow({ name: 'W', providers: { local: 'http://x' as never } }, () => 1)).toThrow(/an AI SDK provider/);
  });
});
