import type { PgClientLike, PgPoolLike } from './pg-like.js';

interface Emitter {
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: 'error', listener: (error: Error) => void): unknown;
}

/** Pools that have the store's listener already: one per pool, however many stores share it. */
const listened = new WeakSet<object>();

/**
 * A `pg.Pool` emits 'error' when an idle client's connection ends (a server restart, a failover, a
 * proxy's idle timeout, `pg_terminate_backend`); with no listener Node throws it and the process
 * dies. By then the pool has dropped that client and opens a new one when next asked, so the
 * store's listener has nothing left to do. Another listener still hears every error: adding one
 * takes nothing from the pool's owner. A pool without `on` (a wrapper) is left as it is.
 */
export function listenForPoolErrors<P extends PgPoolLike>(pool: P): P {
  if (isEmitter(pool) && !listened.has(pool)) {
    pool.on('error', ignore);
    listened.add(pool);
  }
  return pool;
}

/**
 * A checked-out client emits 'error' too when its connection ends (its pool listens only while it
 * is idle); the query it was running rejects with the same error, which is what the store acts on.
 * Returns the function that takes the listener off again, before the client is released.
 */
export function listenWhileCheckedOut(client: PgClientLike): () => void {
  if (!isEmitter(client)) return () => undefined;
  client.on('error', ignore);
  return () => client.removeListener('error', ignore);
}

function ignore(): void {}

function isEmitter(value: object): value is Emitter & object {
  const candidate = value as Partial<Emitter>;
  return typeof candidate.on === 'function' && typeof candidate.removeListener === 'function';
}
