import type { PgConnectionConfig, PgPoolLike } from './pg-like.js';

export interface PostgresRunStoreOptions {
  /** A `pg.Pool` the caller owns (`close()` leaves it open). One of `pool` and `connection`. */
  pool?: PgPoolLike;
  /** A `pg` pool config or a connection string: the store opens its pool and ends it on `close()`. */
  connection?: PgConnectionConfig;
  /** Schema of the tables (default `groundswell`); `migrate()` creates it. */
  schema?: string;
  /** Time source for timestamps and leases (default `Date`: epoch ms, valid across processes). */
  clock?: { now(): number };
}
