import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from 'groundswell';
import { RunStoreError } from 'groundswell/durable';
import { PostgresRunStore } from 'groundswell/postgres';
import { PG_CONNECTION, probePostgres } from '../support/postgres-service.js';
import { runStoreContract, TestClock } from './run-store-contract.js';

// Needs a PostgreSQL server: GROUNDSWELL_PG_URL, else the local socket with database
// groundswell_test. Without one the tests are skipped with the reason printed, except where
// GROUNDSWELL_REQUIRE_SERVICES=1 (CI), where the probe throws and this file fails.

const connection: pg.PoolConfig = typeof PG_CONNECTION === 'string' ? { connectionString: PG_CONNECTION } : PG_CONNECTION;
const probe = await probePostgres();
const unreachable = probe.ok ? undefined : probe.reason;

const pool = new pg.Pool({ ...connection, max: 8 });
const schemas: string[] = [];

afterAll(async () => {
  if (unreachable === undefined) {
    for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  }
  await pool.end();
});

function freshSchema(): string {
  const schema = `gs_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  schemas.push(schema);
  return schema;
}

runStoreContract(
  'PostgresRunStore',
  async () => {
    const schema = freshSchema();
    const clock = new TestClock();
    const store = new PostgresRunStore({ pool, schema, clock });
    await store.migrate();
    return {
      store,
      clock,
      // Its own pool and connection: another process, as far as the server can tell.
      reopen: async () => new PostgresRunStore({ connection, schema, clock }),
      cleanup: () => store.close(),
    };
  },
  unreachable !== undefined,
);

describe.skipIf(unreachable !== undefined)('PostgresRunStore', () => {
  it('migrate() is idempotent, also run by several stores at once', async () => {
    const schema = freshSchema();
    const stores = Array.from({ length: 4 }, () => new PostgresRunStore({ pool, schema }));
    await Promise.all(stores.map((store) => store.migrate()));
    await stores[0]?.migrate();
    await stores[0]?.createRun({ id: 'r', rootName: 'W' });
    expect((await stores[1]?.listRuns())?.map((r) => r.id)).toEqual(['r']);
    await Promise.all(stores.map((store) => store.close()));
  });

  it('says to call migrate() when the tables are missing', async () => {
    const store = new PostgresRunStore({ pool, schema: freshSchema() });
    const error = await store.listRuns().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(RunStoreError);
    expect((error as Error).message).toContain('migrate()');
    await store.close();
  });

  it('close() ends a pool it opened, never one it was given', async () => {
    const schema = freshSchema();
    const own = new PostgresRunStore({ connection, schema });
    await own.migrate();
    await own.close();
    const given = new PostgresRunStore({ pool, schema });
    await given.close();
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('validates its options', () => {
    expect(() => new PostgresRunStore({} as never)).toThrow(UsageError);
    expect(() => new PostgresRunStore({ pool, connection })).toThrow(UsageError);
    expect(() => new PostgresRunStore({ pool, schema: 'Robert"; DROP TABLE x; --' })).toThrow(UsageError);
  });

  it('two stores racing for one lease: exactly one wins', async () => {
    const schema = freshSchema();
    const setup = new PostgresRunStore({ pool, schema });
    await setup.migrate();
    await setup.createRun({ id: 'r', rootName: 'W' });
    const racers = ['a', 'b', 'c', 'd'].map((owner) => ({ owner, store: new PostgresRunStore({ connection, schema }) }));
    const outcomes = await Promise.allSettled(racers.map(({ owner, store }) => store.acquireLease('r', owner, 60_000)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    await Promise.all([setup, ...racers.map((r) => r.store)].map((store) => store.close()));
  });
});
