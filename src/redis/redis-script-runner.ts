import { CacheStoreError } from '../cache/cache-store-error.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisScript } from './redis-scripts.js';

/**
 * Runs the store's Lua scripts by hash, so a write sends 40 characters of script name instead of
 * the script. The first run of a script sends its text (EVAL, which also caches it in Redis);
 * later runs send EVALSHA, and when Redis answers NOSCRIPT (restarted, failed over, or
 * `SCRIPT FLUSH`) the text is sent again once.
 */
export class RedisScriptRunner {
  /** Scripts this store has sent in full: Redis has them unless its script cache was emptied since. */
  private readonly sent = new Set<string>();

  constructor(private readonly redis: RedisConnection) {}

  async run(script: RedisScript, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    if (this.sent.has(script.sha)) {
      try {
        return await this.redis.call('EVALSHA', script.sha, keys.length, ...keys, ...args);
      } catch (error) {
        if (!isNoScript(error)) throw error;
        this.sent.delete(script.sha);
      }
    }
    const reply = await this.redis.call('EVAL', script.source, keys.length, ...keys, ...args);
    this.sent.add(script.sha);
    return reply;
  }
}

function isNoScript(error: unknown): boolean {
  const cause = error instanceof CacheStoreError ? error.cause : undefined;
  return cause instanceof Error && cause.message.startsWith('NOSCRIPT');
}
