import { randomBytes, randomUUID } from 'node:crypto';
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
// The privilege tests create a role and act as it (SET ROLE), which takes a superuser.
const superuser = unreachable === undefined && (await pool.query('SELECT rolsuper FROM pg_roles WHERE rolname = current_user')).rows[0]?.rolsuper === true;
if (unreachable === undefined && !superuser) console.warn('skipping the PostgreSQL privilege tests: the test role is not a superuser, so it cannot create and become another role');

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

  it('a key or name too long for an index is a RunStoreError naming the run and the key, not a driver error', async () => {
    const store = new PostgresRunStore({ pool, schema: freshSchema() });
    await store.migrate();
    await store.createRun({ id: 'r', rootName: 'W' });
    // Random text: PostgreSQL compresses an index entry, so a repetitive key would still fit.
    const long = randomBytes(6000).toString('base64');
    const attempts = [
      () => store.putStep('r', { key: long, status: 'completed', at: 1 }),
      () => store.putCall('r', { key: long, answer: 'a', usage: { inputTokens: 1, outputTokens: 1, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 }, model: 'm', at: 1 }),
      () => store.putData('r', long, 1),
    ];
    for (const attempt of attempts) {
      const error = await attempt().then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(RunStoreError);
      expect((error as Error).message).toContain('run "r"');
      expect((error as Error).message).toContain(long.slice(0, 40));
      expect((error as Error).cause).toHaveProperty('code', '54000');
    }
    expect(await store.putStep('r', { key: 'x'.repeat(100_000), status: 'completed', at: 1 })).toBe(true);
    expect((await store.loadRun('r')).steps.map((s) => s.key.length)).toEqual([100_000]);
    await store.close();
  });
});

describe.skipIf(!superuser)('PostgresRunStore run by a role that may use but not create the tables', () => {
  /** A role with USAGE on each schema, table privileges on `tables`' schemas, no CREATE; dropped afterwards. */
  async function asLimitedRole(usage: string[], tables: string[], body: (connection: pg.PoolConfig) => Promise<void>): Promise<void> {
    const role = `gs_test_role_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    await pool.query(`CREATE ROLE ${role} NOLOGIN`);
    try {
      for (const schema of usage) await pool.query(`GRANT USAGE ON SCHEMA "${schema}" TO ${role}`);
      for (const schema of tables) await pool.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${schema}" TO ${role}`);
      await body({ ...connection, options: `-c role=${role}` });
    } finally {
      await pool.query(`DROP OWNED BY ${role}`);
      await pool.query(`DROP ROLE ${role}`);
    }
  }

  it('migrate() succeeds where the tables exist, and the store works', async () => {
    const schema = freshSchema();
    const owner = new PostgresRunStore({ pool, schema });
    await owner.migrate();
    await owner.close();
    await asLimitedRole([schema], [schema], async (limited) => {
      const store = new PostgresRunStore({ connection: limited, schema });
      try {
        await store.migrate();
        await store.createRun({ id: 'r', rootName: 'W' });
        expect(await store.putStep('r', { key: 's', status: 'completed', value: 1, at: 1 })).toBe(true);
        await store.putData('r', 'plan', 'p');
        await store.putSignal('r', { name: 'go', value: true, at: 2 });
        expect(await store.appendEvents('r', [{ type: 'e' }])).toEqual({ first: 1, last: 1 });
        const lease = await store.acquireLease('r', 'me', 60_000);
        await store.updateRun('r', { status: 'completed', result: 'ok' });
        await lease.release();
        const loaded = await store.loadRun('r');
        expect(loaded.steps.map((s) => s.key)).toEqual(['s']);
        expect(loaded.data).toEqual({ plan: 'p' });
        expect(loaded.run.result).toBe('ok');
      } finally {
        await store.close();
      }
    });
  });

  it('migrate() of an empty schema is a RunStoreError naming the schema, what is missing and what to do', async () => {
    const schema = freshSchema();
    await pool.query(`CREATE SCHEMA "${schema}"`);
    await asLimitedRole([schema], [], async (limited) => {
      const store = new PostgresRunStore({ connection: limited, schema });
      try {
        const error = await store.migrate().then(() => undefined, (e: unknown) => e);
        expect(error).toBeInstanceOf(RunStoreError);
        const message = (error as Error).message;
        for (const part of [`"${schema}"`, 'table runs', 'table steps', 'index runs_created_at', 'migrate()', 'owns the schema', 'CREATE']) {
          expect(message).toContain(part);
        }
        expect((error as Error).cause).toHaveProperty('code', '42501');
        // Once the owner has migrated, this role's migrate() creates nothing; using tables it was
        // granted nothing on is a RunStoreError saying what to grant.
        const owner = new PostgresRunStore({ pool, schema });
        await owner.migrate();
        await owner.close();
        await store.migrate();
        const denied = await store.createRun({ id: 'r', rootName: 'W' }).then(() => undefined, (e: unknown) => e);
        expect(denied).toBeInstanceOf(RunStoreError);
        expect((denied as Error).message).toContain(`schema "${schema}"`);
        expect((denied as Error).message).toContain('SELECT, INSERT, UPDATE, DELETE');
      } finally {
        await store.close();
      }
    });
  });
});
