import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, type Agent, type CacheMissEvent, type CacheStoreErrorEvent } from 'groundswell';
import { CacheStoreError } from 'groundswell/cache';
import { json, ScriptedModel } from 'groundswell/testing';
import { RedisCacheStore } from 'groundswell/redis';
import { eventsOfType, record } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';
import { freePort, HAS_REDIS_SERVER, OwnRedisServer } from './own-redis-server.js';

if (!HAS_REDIS_SERVER) {
  const reason = 'redis-server is not installed (see .ci/run)';
  if (process.env.GROUNDSWELL_REQUIRE_SERVICES === '1') throw new Error(`${reason}, and GROUNDSWELL_REQUIRE_SERVICES=1 requires it.`);
  console.warn(`skipping Redis outage tests: ${reason}`);
}

const Echo = z.object({ echo: z.string() });

function echoing(): ScriptedModel {
  return new ScriptedModel((request) => json({ echo: /topic (\w+)/.exec(JSON.stringify(request.body))?.[1] ?? '?' }));
}

/** One workflow asking `topics` in turn, each in its own step; `between` runs after each answer. */
async function ask(agent: Agent, topics: string[], between: (i: number) => Promise<void> = async () => undefined) {
  const workflow = createWorkflow({ name: 'Outage' }, async (ctx) => {
    const answers: string[] = [];
    for (const [i, topic] of topics.entries()) {
      answers.push(await ctx.step(`ask-${topic}`, async () => (await agent.prompt(createPrompt({ user: `topic ${topic}`, responseFormat: Echo }))).echo));
      await between(i);
    }
    return answers;
  });
  const recording = record(workflow);
  const answers = await workflow.run();
  const misses = eventsOfType(recording.events, 'cacheMiss').map((event: CacheMissEvent) => event.reason);
  const hits = eventsOfType(recording.events, 'cacheHit').length;
  const storeErrors = eventsOfType(recording.events, 'cacheStoreError').map((event: CacheStoreErrorEvent) => event.operation);
  return { answers, misses, hits, storeErrors, recording };
}

describe.skipIf(!HAS_REDIS_SERVER)('RedisCacheStore when Redis is down', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    vi.restoreAllMocks();
  });

  it('with no server at all, every call is answered by the model and reported, and nothing is printed', async () => {
    const errors = vi.spyOn(console, 'error');
    const store = new RedisCacheStore({ url: `redis://127.0.0.1:${await freePort()}` });
    cleanups.push(() => store.close());
    const model = echoing();
    const agent = createAgent({ name: 'outage', client: model.client({ maxRetries: 0 }), enableCache: true, cache: store });

    const run = await ask(agent, ['a', 'b', 'a']);
    expect(run.answers).toEqual(['a', 'b', 'a']);
    expect(model.requests).toHaveLength(3);
    expect(run.misses).toEqual(['unavailable', 'unavailable', 'unavailable']);
    expect(run.storeErrors).toEqual(['lookup', 'set', 'lookup', 'set', 'lookup', 'set']);
    const first = eventsOfType(run.recording.events, 'cacheStoreError')[0];
    expect(first?.message).toMatch(/Redis (EVAL|GET) failed/);
    // The store's own connection has an error listener: ioredis prints no "Unhandled error event".
    expect(errors.mock.calls.flat().join(' ')).not.toMatch(/ioredis/);
    await expect(store.get('gs:x')).rejects.toBeInstanceOf(CacheStoreError);
  }, 30_000);

  it('Redis killed mid-run costs misses, not failures, and the store serves again once Redis is back', async () => {
    const server = new OwnRedisServer(await freePort());
    await server.start();
    cleanups.push(() => server.kill());
    // The back-off window after a failure is measured by this clock: the test moves it on.
    const clock = new FakeClock();
    const store = new RedisCacheStore({ url: server.url, prefix: 'outage:', clock, backoffMs: 5000 });
    cleanups.push(() => store.close());
    const model = echoing();
    const agent = createAgent({ name: 'outage', client: model.client({ maxRetries: 0 }), enableCache: true, cache: store });

    // a (stored), a (hit), then the server dies: a and b are asked of the model, reported, not failed.
    const run = await ask(agent, ['a', 'a', 'a', 'b'], async (i) => {
      if (i === 1) await server.kill();
    });
    expect(run.answers).toEqual(['a', 'a', 'a', 'b']);
    expect(model.requests).toHaveLength(3);
    expect(run.hits).toBe(1);
    expect(run.misses).toEqual(['absent', 'unavailable', 'unavailable']);
    expect(run.storeErrors).toEqual(['lookup', 'set', 'lookup', 'set']);

    // Back (empty: it kept nothing on disk): the store reconnects by itself in the background.
    await server.start();
    await vi.waitFor(
      () => {
        clock.advance(5000);
        return store.get('gs:probe');
      },
      { timeout: 15_000, interval: 100 },
    );
    const after = await ask(agent, ['c', 'c']);
    expect(after.misses).toEqual(['absent']);
    expect(after.hits).toBe(1);
    expect(after.storeErrors).toEqual([]);
  }, 30_000);
});
