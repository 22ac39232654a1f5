// `groundswell/postgres`: the run store on PostgreSQL, for runs shared by many
// processes. A separate entry so `pg` (an optional peer) is needed only by those who use it;
// it is loaded when the store first connects. The contract and errors are `groundswell/durable`.
export { PostgresRunStore } from './postgres-store.js';
export type { PostgresRunStoreOptions } from './postgres-store-options.js';
export type { PgClientLike, PgConnectionConfig, PgPoolLike, PgResultLike } from './pg-like.js';
