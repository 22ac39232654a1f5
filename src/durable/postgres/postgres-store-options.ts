import type { FsyncPolicy } from '../store/fsync-policy.js';
import type { PgConnectionConfig, PgPoolLike } from './pg-like.js';

export interface PostgresRunStoreOptions {
  /**
   * A `pg.Pool` the caller owns (`close()` leaves it open). One of `pool` and `connection`. The
   * store adds one 'error' listener to it (once per pool, however many stores share it), so an idle
   * connection the server ends does not kill the process; the caller's own listeners still hear
   * every error. A pool object without `on` gets none: give its `pg.Pool` a listener yourself.
   */
  pool?: PgPoolLike;
  /** A `pg` pool config or a connection string: the store opens its pool and ends it on `close()`. */
  connection?: PgConnectionConfig;
  /** Schema of the tables (default `groundswell`); `migrate()` creates it. */
  schema?: string;
  /**
   * Which commits wait for the server's disk (`synchronous_commit`). Default `every-record`: every
   * write does, so a settled step is on disk before the workflow goes on. `checkpoints` is faster:
   * runs, signals and leases wait, steps, calls, events, data and the tree commit asynchronously,
   * so a crash of the database server or its machine can lose the last of those (never corrupt
   * them; the next synchronous commit flushes them), and a resume then runs those steps again,
   * side effects included. `off`: nothing waits.
   */
  fsync?: FsyncPolicy;
  /**
   * Whether writes go as named prepared statements, parsed and planned once per connection
   * (default true; a settled step's statement costs about half as much on the server). Set false
   * behind a pooler in transaction mode that keeps no prepared statements (PgBouncer before 1.21,
   * or with `max_prepared_statements` 0).
   */
  prepare?: boolean;
  /** Time source for timestamps and leases (default `Date`: epoch ms, valid across processes). */
  clock?: { now(): number };
}
