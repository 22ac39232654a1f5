import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, type Agent, type CacheMissEvent, type CacheStoreErrorEvent } from 'groundswell';
import { CacheStoreError } from 'groundswell/cache';
import { json, ScriptedModel } from 'groundswell/testing';
import { RedisCacheStore } from 'groundswell/redis';
import { response } from '../cache/store-helpers.js';
import { eventsOfType, record } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';
import { probeRedis, REDIS_URL } from '../support/redis-service.js';
import { FreezableProxy } from './freezable-proxy.js';
import { uniquePrefix } from './redis-helpers.js';

const redis = await probeRedis();
const Echo = z.object({ echo: z.string() });

/** One workflow asking `topics` in turn; the cache misses, hits and store errors it reported. */
async function ask(agent: Agent, topics: string[]) {
  const workflow = createWorkflow({ name: 'Frozen' }, async (ctx) => {
    const answers: string[] = [];
    for (const topic of topics) {
      answers.push(await ctx.step(`ask-${topic}`, async () => (await agent.prompt(createPrompt({ user: `topic ${topic}`, responseFormat: Echo }))).echo));
    }
    return answers;
  });
  const recording = record(workflow);
  const answers = await workflow.run();
  return {
    answers,
    misses: eventsOfType(recording.events, 'cacheMiss').map((event: CacheMissEvent) => event.reason),
    hits: eventsOfType(recording.events, 'cacheHit').length,
    storeErrors: eventsOfType(recording.events, 'cacheStoreError').map((event: CacheStoreErrorEvent) => event.operation),
  };
}

async function failure(operation: Promise<unknown>): Promise<Error> {
  const error = await operation.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(CacheStoreError);
  return error as Error;
}

describe('RedisCacheStore against a server that never answers', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('costs one timeout, not one per call: Redis is skipped for backoffMs, then tried again', async () => {
    const silent = await FreezableProxy.start();
    cleanups.push(() => silent.close());
    const clock = new FakeClock();
    const store = new RedisCacheStore({ url: silent.url, timeoutMs: 100, backoffMs: 5000, clock });
    cleanups.push(() => store.close());

    const messages: string[] = [];
    for (let i = 0; i < 10; i += 1) messages.push((await failure(store.lookup(`gs:${i}`))).message);
    expect(messages[0]).toBe('Redis GET failed: no answer within 100 ms');
    for (const message of messages.slice(1)) expect(message).toMatch(/^Redis GET failed: not tried, Redis is skipped for 5000 ms more/);
    expect((await failure(store.set('gs:x', response('x')))).message).toMatch(/not tried/);

    clock.advance(4999);
    expect((await failure(store.lookup('gs:a'))).message).toMatch(/skipped for 1 ms more/);
    clock.advance(1);
    // Tried again (and timed out again, by the store's bound or the client's own command timeout).
    expect((await failure(store.lookup('gs:a'))).message).not.toMatch(/not tried/);
    expect((await failure(store.lookup('gs:a'))).message).toMatch(/not tried/);
  });

  it('backoffMs 0 never skips, and a negative or fractional one is refused', async () => {
    expect(() => new RedisCacheStore({ url: 'redis://x', backoffMs: -1 })).toThrow(/backoffMs/);
    expect(() => new RedisCacheStore({ url: 'redis://x', backoffMs: 0.5 })).toThrow(/backoffMs/);
    const silent = await FreezableProxy.start();
    cleanups.push(() => silent.close());
    const store = new RedisCacheStore({ url: silent.url, timeoutMs: 50, backoffMs: 0, clock: new FakeClock() });
    cleanups.push(() => store.close());
    expect((await failure(store.get('gs:a'))).message).toMatch(/no answer within 50 ms/);
    expect((await failure(store.get('gs:a'))).message).not.toMatch(/not tried/);
  });
});

describe.skipIf(!redis.ok)('RedisCacheStore when Redis freezes mid-run', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('agent calls against the frozen server are unavailable misses and only the first one waits; after the window it serves again', async () => {
    const upstream = new URL(REDIS_URL);
    const proxy = await FreezableProxy.start({ host: upstream.hostname, port: Number(upstream.port || 6379) });
    cleanups.push(() => proxy.close());
    const clock = new FakeClock();
    const prefix = uniquePrefix('frozen');
    const store = new RedisCacheStore({ url: proxy.url, prefix, timeoutMs: 200, backoffMs: 30_000, clock });
    cleanups.push(async () => {
      await store.bustPrefix('').catch(() => undefined);
      await store.close();
    });
    await store.set('gs:warm', response('warm'));
    const model = new ScriptedModel((request) => json({ echo: /topic (\w+)/.exec(JSON.stringify(request.body))?.[1] ?? '?' }));
    const agent = createAgent({ name: 'frozen', client: model.client({ maxRetries: 0 }), enableCache: true, cache: store });

    proxy.freeze();
    const frozen = await ask(agent, ['a', 'b', 'c']);
    expect(frozen.answers).toEqual(['a', 'b', 'c']);
    expect(frozen.misses).toEqual(['unavailable', 'unavailable', 'unavailable']);
    expect(frozen.storeErrors).toEqual(['lookup', 'set', 'lookup', 'set', 'lookup', 'set']);
    // Six operations, one of them sent (and left waiting): the rest were skipped at once.
    expect(proxy.frozenCommands).toEqual(['GET']);

    proxy.thaw();
    clock.advance(30_000);
    const after = await ask(agent, ['d', 'd']);
    expect(after.misses).toEqual(['absent']);
    expect(after.hits).toBe(1);
    expect(after.storeErrors).toEqual([]);
  });
});
