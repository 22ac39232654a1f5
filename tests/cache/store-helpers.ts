import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { CachedResponse } from '../../src/cache/cache.js';
import { cacheIdentity, type CacheEntryHeader } from '../../src/cache/cache-entry-header.js';
import { CACHE_KEY_PARTS } from '../../src/cache/cache-key-parts.js';
import type { CacheKeyPart } from '../../src/types/cache.js';

/** A response as the agent stores it, with `value` as given. */
export function response(value: unknown, storedAt = 1): CachedResponse {
  return {
    value,
    model: 'claude-test',
    stopReason: 'end_turn',
    usage: { inputTokens: 10, outputTokens: 5, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
    storedAt,
  };
}

/** Fresh temp directories, removed after each test of the calling file. */
export function tempDirs(): () => Promise<string> {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gs-cache-'));
    made.push(dir);
    return dir;
  };
}

/** A well-formed entry header for `agent`/`prompt`; every part fingerprint is `fill` repeated. */
export function header(agent = 'researcher', prompt = 'Summarise', fill = 'a', createdAt = 1): CacheEntryHeader {
  const parts = Object.fromEntries(CACHE_KEY_PARTS.map((part) => [part, fill.repeat(16)])) as Record<CacheKeyPart, string>;
  return { agent, prompt, identity: cacheIdentity(agent, prompt), model: 'claude-test', parts, ignored: [], createdAt };
}
