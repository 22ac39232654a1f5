import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, ReplayMismatchError, resume, type LanguageModelLike, type Workflow } from 'groundswell';
import { LruCacheStore } from 'groundswell/cache';
import { JournalRunStore } from 'groundswell/durable';
import { json, ScriptedModel, serveChatCompletions, stream, type ChatCompletionsServer } from 'groundswell/testing';

const Source = z.object({ source: z.string() });
const ask = createPrompt({ user: 'Who answers?', responseFormat: Source });

interface Served {
  readonly script: ScriptedModel;
  readonly server: ChatCompletionsServer;
  /** The provider's chat model `m`: the same model id on both servers. */
  readonly model: LanguageModelLike;
}

let gateway: Served;
let backup: Served;
let dir: string;
let store: JournalRunStore;

/** One OpenAI-compatible provider on its own loopback server, answering with its own name. */
async function serve(name: string): Promise<Served> {
  const script = new ScriptedModel(() => json({ source: name }));
  const server = await serveChatCompletions(script);
  const model = createOpenAICompatible({ name, baseURL: server.baseURL, supportsStructuredOutputs: true }).chatModel('m');
  return { script, server, model };
}

beforeEach(async () => {
  gateway = await serve('corp.gateway');
  backup = await serve('corp.backup');
  dir = mkdtempSync(join(tmpdir(), 'gs-provider-identity-'));
  store = new JournalRunStore({ dir, fsync: 'off' });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  await gateway.server.close();
  await backup.server.close();
});

describe('two providers whose names share the part before the dot (corp.gateway, corp.backup)', () => {
  it('keep their own prompt-cache entries: each call reaches its own server and gets its own answer', async () => {
    const cache = new LruCacheStore();
    const on = (served: Served) => createAgent({ name: 'asker', model: served.model, cache, enableCache: true });

    expect(await on(gateway).prompt(ask)).toEqual({ source: 'corp.gateway' });
    expect(await on(backup).prompt(ask)).toEqual({ source: 'corp.backup' });
    // The cache still answers each provider from its own entry.
    expect(await on(gateway).prompt(ask)).toEqual({ source: 'corp.gateway' });
    expect(await on(backup).prompt(ask)).toEqual({ source: 'corp.backup' });

    expect(gateway.script.requests).toHaveLength(1);
    expect(backup.script.requests).toHaveLength(1);
  });

  it('have different call fingerprints: resuming a durable run on the other provider is a mismatch, on the same one a replay', async () => {
    let crash = true;
    const build = (runId: string, served: () => Served) => (): Workflow<string> =>
      createWorkflow({ name: 'Ask', durable: { store, runId } }, async (ctx) => {
        const answer = await createAgent({ name: 'asker', model: served().model }).prompt(ask);
        if (crash) throw new Error('crash');
        return ctx.step('use', () => answer.source);
      });
    let resumeOn = gateway;
    await expect(build('same', () => gateway)().run()).rejects.toThrow(/crash/);
    await expect(build('other', () => gateway)().run()).rejects.toThrow(/crash/);
    for (const runId of ['same', 'other']) await store.updateRun(runId, { status: 'running', error: null });
    crash = false;

    expect(await resume('same', { store, workflows: { Ask: build('same', () => resumeOn) } })).toBe('corp.gateway');
    resumeOn = backup;
    const error = await resume('other', { store, workflows: { Ask: build('other', () => resumeOn) } }).catch((e: unknown) => e);
    expect((error as { cause?: unknown }).cause).toBeInstanceOf(ReplayMismatchError);

    // Both journaled calls went to the gateway; the replay asked nobody, the mismatch neither.
    expect(gateway.script.requests).toHaveLength(2);
    expect(backup.script.requests).toHaveLength(0);
  });

  it('are priced by their own `provider/model` key, and the documented shorter keys still apply', async () => {
    const pricing = {
      'corp.gateway/m': { inputPerMTok: 1_000_000, outputPerMTok: 0 },
      'corp.backup/m': { inputPerMTok: 2_000_000, outputPerMTok: 0 },
    };
    const viaGateway = await createAgent({ name: 'asker', model: gateway.model, pricing }).execute(ask);
    const viaBackup = await createAgent({ name: 'asker', model: backup.model, pricing }).execute(ask);
    expect(viaGateway.usage.inputTokens).toBeGreaterThan(0);
    expect(viaGateway.usage.costUsd).toBe(viaGateway.usage.inputTokens);
    expect(viaBackup.usage.costUsd).toBe(2 * viaBackup.usage.inputTokens);

    // The family key (`corp/m`, the form documented before) prices both; a provider's own key wins over it.
    const family = { 'corp/m': { inputPerMTok: 3_000_000, outputPerMTok: 0 }, 'corp.backup/m': pricing['corp.backup/m'] };
    const byFamily = await createAgent({ name: 'asker', model: gateway.model, pricing: family }).execute(ask);
    const byOwnKey = await createAgent({ name: 'asker', model: backup.model, pricing: family }).execute(ask);
    expect(byFamily.usage.costUsd).toBe(3 * byFamily.usage.inputTokens);
    expect(byOwnKey.usage.costUsd).toBe(2 * byOwnKey.usage.inputTokens);
    // The whole provider id (with its API flavour) and the bare model id are keys too.
    const whole = await createAgent({ name: 'asker', model: gateway.model, pricing: { 'corp.gateway.chat/m': { inputPerMTok: 4_000_000, outputPerMTok: 0 } } }).execute(ask);
    const bare = await createAgent({ name: 'asker', model: backup.model, pricing: { m: { inputPerMTok: 5_000_000, outputPerMTok: 0 } } }).execute(ask);
    expect(whole.usage.costUsd).toBe(4 * whole.usage.inputTokens);
    expect(bare.usage.costUsd).toBe(5 * bare.usage.inputTokens);
  });
});

describe('an error chunk inside a provider stream', () => {
  it("fails the streamed call with the provider's message and type", async () => {
    const script = new ScriptedModel([stream(json({ source: 'half' }), { interruptWith: { type: 'insufficient_quota', message: 'quota exhausted' } })]);
    const server = await serveChatCompletions(script);
    try {
      const model = createOpenAICompatible({ name: 'corp.gateway', baseURL: server.baseURL, supportsStructuredOutputs: true }).chatModel('m');
      const error = await createAgent({ name: 'streamer', model }).stream(ask).finalValue().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain('quota exhausted');
      expect((error as Error).message).toContain('insufficient_quota');
      // The answer had begun: it is not asked again.
      expect(script.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
