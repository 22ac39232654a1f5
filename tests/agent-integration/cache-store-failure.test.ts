import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow } from 'groundswell';
import { CacheStoreError, LruCacheStore, type Cache } from 'groundswell/cache';
import { json, ScriptedModel } from 'groundswell/testing';
import { eventsOfType, record } from '../support/events.js';
import { agentModelSync } from '../support/model-path.js';

const Answer = z.object({ answer: z.string() });

/** An in-memory store whose listed operations fail the way a store on a server that went away does. */
function failing(operations: ReadonlyArray<'lookup' | 'set' | 'bust'>): Cache {
  const store = new LruCacheStore();
  const fail = (operation: string) => Promise.reject(new CacheStoreError(`Redis ${operation} failed: connect ECONNREFUSED`));
  return {
    get: (key) => store.get(key),
    lookup: (key) => (operations.includes('lookup') ? fail('GET') : store.lookup(key)),
    set: (key, value, options) => (operations.includes('set') ? fail('EVAL') : store.set(key, value, options)),
    bust: (key) => (operations.includes('bust') ? fail('EVAL') : store.bust(key)),
    bustPrefix: (prefix) => store.bustPrefix(prefix),
    metrics: () => store.metrics(),
  };
}

async function twice(cache: Cache, answers: unknown[]) {
  const model = new ScriptedModel(answers.map((answer) => json(answer)));
  const agent = createAgent({ name: 'asker', ...agentModelSync(model), enableCache: true, cache });
  const prompt = createPrompt({ name: 'ask', user: 'Same question', responseFormat: Answer });
  const workflow = createWorkflow({ name: 'Twice' }, async (ctx) => [
    await ctx.step('first', () => agent.execute(prompt)),
    await ctx.step('second', () => agent.execute(prompt)),
  ]);
  const recording = record(workflow);
  const results = await workflow.run();
  return { results, model, recording };
}

describe('a cache store that fails costs misses, never the call', () => {
  it('a failed lookup is a miss (unavailable) and a failed set leaves the answer unsaved: both reported as cacheStoreError', async () => {
    const { results, model, recording } = await twice(failing(['lookup', 'set']), [{ answer: 'a' }, { answer: 'b' }]);
    expect(results.map((result) => result.value)).toEqual([{ answer: 'a' }, { answer: 'b' }]);
    expect(results.map((result) => result.cacheMiss?.reason)).toEqual(['unavailable', 'unavailable']);
    expect(model.requests).toHaveLength(2);
    const errors = eventsOfType(recording.events, 'cacheStoreError');
    expect(errors.map((event) => [event.agentName, event.operation])).toEqual([
      ['asker', 'lookup'],
      ['asker', 'set'],
      ['asker', 'lookup'],
      ['asker', 'set'],
    ]);
    expect(errors[0]?.message).toBe('Redis GET failed: connect ECONNREFUSED');
    expect(errors[0]?.key).toBe(results[0]?.cacheMiss?.key);
    expect(recording.logs.filter((log) => log.level === 'warn').map((log) => log.message)).toEqual([
      'Cache store failed to save the answer of agent "asker"',
      'Cache store failed to save the answer of agent "asker"',
    ]);
  });

  it('an entry that no longer validates, in a store that cannot bust it: the model is asked, the failed bust reported', async () => {
    const cache = failing(['bust']);
    const { results, recording } = await twice(cache, [{ answer: 'fixed' }]);
    expect(results[1]?.cached).toBe(true);
    // Poison the entry the first call stored, then ask again.
    const key = results[0]?.cacheMiss?.key ?? '';
    await cache.set(key, { value: { wrong: 1 }, model: 'm', stopReason: null, usage: { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 }, storedAt: 1 });
    const { results: after, recording: afterRecording } = await twice(cache, [{ answer: 'fresh' }]);
    expect(after.map((result) => result.value)).toEqual([{ answer: 'fresh' }, { answer: 'fresh' }]);
    expect(after[0]?.cacheMiss?.reason).toBe('invalid');
    expect(eventsOfType(afterRecording.events, 'cacheStoreError').map((event) => event.operation)).toEqual(['bust']);
    expect(eventsOfType(recording.events, 'cacheStoreError')).toEqual([]);
  });
});
