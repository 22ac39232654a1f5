/**
 * What the store needs of a Redis client. Structural, so the declarations of `groundswell/redis`
 * do not need ioredis; an ioredis 5 or 6 `Redis` fits. Every command goes through `call`, which
 * ioredis offers for any command, so the store depends on no command helper's overloads.
 */
export interface RedisClientLike {
  /** ioredis' connection state: `wait` (lazy, not yet connected), `connecting`, `ready`, `reconnecting`, `end`, ... */
  readonly status: string;
  connect(): Promise<unknown>;
  call(command: string, ...args: Array<string | number>): Promise<unknown>;
  once(event: 'ready' | 'error' | 'end', listener: (...args: unknown[]) => void): unknown;
  removeListener(event: 'ready' | 'error' | 'end', listener: (...args: unknown[]) => void): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
}
