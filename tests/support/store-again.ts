import { JournalRunStore, type RunStore } from 'groundswell/durable';
import { PostgresRunStore } from 'groundswell/postgres';
import { PG_CONNECTION } from './postgres-service.js';

/**
 * A second instance on the storage `store` uses (its folder, or its PostgreSQL schema), as another
 * process would open it: nothing cached from the first. With `clock`, its time is that clock's
 * (an hour ahead: every lease taken before has expired).
 */
export function storeAgain(store: RunStore, clock?: { now(): number }): RunStore {
  const timed = clock === undefined ? {} : { clock };
  if (store instanceof JournalRunStore) return new JournalRunStore({ dir: store.dir, fsync: 'off', ...timed });
  if (store instanceof PostgresRunStore) return new PostgresRunStore({ connection: PG_CONNECTION, schema: store.schema, fsync: 'off', ...timed });
  throw new Error('storeAgain: a journal or PostgreSQL store only.');
}

/** A clock `ms` ahead of the wall clock. */
export function clockAhead(ms: number): { now(): number } {
  return { now: () => Date.now() + ms };
}
