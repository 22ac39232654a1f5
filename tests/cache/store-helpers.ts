import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { CachedResponse } from '../../src/cache/cache.js';

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
