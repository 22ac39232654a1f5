import { CacheStoreError } from '../cache/cache-store-error.js';
import { errorMessage } from '../util/describe.js';
import { loadIoredis } from './load-ioredis.js';
import type { RedisClientLike } from './redis-client-like.js';
import { RedisOutage } from './redis-outage.js';

/**
 * The client the store opens for a `url`. Tuned to fail fast, because a cache that is down must
 * cost a miss, not a stalled call: no offline queue (a command while disconnected fails at once),
 * no retry of a command whose connection dropped, connect and command timeouts of `timeoutMs`,
 * and reconnects in the background with a capped backoff (never a tight loop).
 */
function clientOptions(timeoutMs: number): Record<string, unknown> {
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    retryStrategy: (times: number) => Math.min(50 * 2 ** Math.min(times, 6), 2000),
  };
}

/**
 * One Redis client as the store uses it: opened on first use, every command bounded by
 * `timeoutMs`, and any failure turned into a `CacheStoreError`. While the client is not
 * connected, commands fail at once instead of queueing (an injected client's own offline queue
 * is never used either). After Redis failed to answer, commands are not even tried for
 * `backoffMs` (see `RedisOutage`); an error reply (WRONGTYPE, NOSCRIPT) is an answer, not an outage.
 */
export class RedisConnection {
  private client: RedisClientLike | undefined;
  private opening: Promise<RedisClientLike> | undefined;
  private connecting: Promise<unknown> | undefined;
  /** Whether the client was ever ready: until then a store waits (once) for a client still connecting. */
  private waited = false;
  private lastError: unknown;
  private closed = false;
  private readonly outage: RedisOutage;

  constructor(
    private readonly source: { readonly client: RedisClientLike } | { readonly url: string },
    private readonly timeoutMs: number,
    backoff: { readonly backoffMs: number; readonly clock: { now(): number } },
  ) {
    if ('client' in source) this.client = source.client;
    this.outage = new RedisOutage(backoff.backoffMs, backoff.clock);
  }

  /** Runs one command, e.g. `call('GET', key)`. */
  async call(command: string, ...args: Array<string | number>): Promise<unknown> {
    if (this.closed) throw new CacheStoreError(`RedisCacheStore is closed; cannot run ${command}.`);
    this.outage.check(command);
    let client: RedisClientLike;
    try {
      client = await this.ready(command);
    } catch (error) {
      this.outage.failed(error);
      throw error;
    }
    return this.bounded(client.call(command, ...args), command).catch((error: unknown) => {
      if (!isErrorReply(error)) this.outage.failed(error);
      throw error;
    });
  }

  /** Closes a client the store opened (waiting for its replies); an injected client stays open. */
  async close(): Promise<void> {
    this.closed = true;
    if ('client' in this.source) return;
    const client = this.client ?? (await this.opening?.catch(() => undefined));
    if (client === undefined) return;
    if (client.status === 'ready') {
      await this.bounded(client.quit(), 'QUIT').catch(() => client.disconnect());
    } else {
      client.disconnect();
    }
  }

  private async ready(command: string): Promise<RedisClientLike> {
    const client = this.client ?? (await this.open());
    if (client.status === 'ready') {
      this.waited = true;
      return client;
    }
    if (client.status === 'wait' || this.connecting !== undefined) {
      // A lazy client: connect it once, however many commands arrive meanwhile (each waits for that
      // first connect). If it fails, ioredis goes on reconnecting in the background, and commands
      // fail at once until it is back.
      this.waited = true;
      this.connecting ??= client.connect().finally(() => (this.connecting = undefined));
      // ioredis rejects with "Connection is closed."; the 'error' event it emitted says why.
      await this.bounded(this.connecting, command).catch((error: unknown) => {
        throw this.lastError === undefined ? error : this.failure(command, this.lastError);
      });
      return client;
    }
    if (!this.waited && client.status !== 'end' && client.status !== 'close') {
      // A client handed over while still connecting: give it one chance to become ready.
      this.waited = true;
      await this.readyEvent(client);
      if (client.status === 'ready') return client;
    }
    throw this.failure(command, this.lastError ?? new Error(`not connected (ioredis status "${client.status}")`));
  }

  private open(): Promise<RedisClientLike> {
    if (!('url' in this.source)) throw new Error('unreachable: a store has a client or a url');
    const url = this.source.url;
    this.opening ??= loadIoredis().then(({ Redis }) => {
      const client = new Redis(url, clientOptions(this.timeoutMs));
      // Without a listener ioredis prints every connection error; the store reports them as
      // failed commands instead (the last one is named in the next failure).
      client.on('error', (error) => {
        this.lastError = error;
      });
      this.client = client;
      return client;
    });
    return this.opening;
  }

  private readyEvent(client: RedisClientLike): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        client.removeListener('ready', done);
        client.removeListener('end', done);
        resolve();
      };
      const timer = setTimeout(done, this.timeoutMs);
      client.once('ready', done);
      client.once('end', done);
    });
  }

  /** `promise`, or a CacheStoreError once `timeoutMs` has passed (the command may still finish later). */
  private bounded<T>(promise: Promise<T>, command: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    // A late rejection of the abandoned command is expected, not unhandled.
    promise.catch(() => undefined);
    return Promise.race([promise, timeout])
      .catch((error: unknown) => {
        throw this.failure(command, error);
      })
      .finally(() => clearTimeout(timer));
  }

  private failure(command: string, cause: unknown): CacheStoreError {
    return new CacheStoreError(`Redis ${command} failed: ${errorMessage(cause)}`, { cause });
  }
}

/** Redis answered with an error (ioredis' `ReplyError`): the server is there, so no outage. */
function isErrorReply(error: unknown): boolean {
  const cause = error instanceof CacheStoreError ? error.cause : error;
  return cause instanceof Error && cause.name === 'ReplyError';
}
