import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from 'groundswell';
import { RunLeaseError, RunStoreError, type StepRecord } from 'groundswell/durable';
import { PostgresRunStore, type PgClientLike, type PgPoolLike, type PgResultLike } from 'groundswell/postgres';
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
    expect(() => new PostgresRunStore({ pool, prepare: 'yes' as never })).toThrow(UsageError);
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

  it('migrate() drops the foreign keys an older schema has on the hot tables, and a write to an unknown run still writes nothing', async () => {
    const schema = freshSchema();
    const store = new PostgresRunStore({ pool, schema });
    await store.migrate();
    // As schemas were made before: every table's run_id referenced runs.
    for (const table of ['steps', 'calls', 'event_batches']) {
      await pool.query(`ALTER TABLE "${schema}".${table} ADD CONSTRAINT ${table}_run_id_fkey FOREIGN KEY (run_id) REFERENCES "${schema}".runs (id) ON DELETE CASCADE`);
    }
    const keys = async (): Promise<string[]> =>
      (
        await pool.query(
          `SELECT c.conname AS name FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = $1 AND c.contype = 'f' ORDER BY 1`,
          [schema],
        )
      ).rows.map((row: { name: string }) => row.name);
    expect(await keys()).toContain('steps_run_id_fkey');
    await store.migrate();
    expect(await keys()).toEqual(['data_run_id_fkey', 'events_run_id_fkey', 'signals_run_id_fkey', 'trees_run_id_fkey']);
    // Without the keys, the run's own row still guards every write: an unknown run gets nothing.
    await expect(store.settleStep('ghost', stepOf('a', 1), [{ type: 'e' }])).rejects.toThrow(/ghost/);
    await expect(store.putStep('ghost', stepOf('a', 1))).rejects.toThrow(/ghost/);
    await expect(store.putCall('ghost', { key: 'c', answer: 1, usage: { inputTokens: 1, outputTokens: 1, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 }, model: 'm', at: 1 })).rejects.toThrow(/ghost/);
    await expect(store.appendEvents('ghost', [{ type: 'e' }])).rejects.toThrow(/ghost/);
    for (const table of ['steps', 'calls', 'event_batches']) expect((await pool.query(`SELECT count(*)::int AS n FROM "${schema}".${table}`)).rows[0]?.n).toBe(0);
    await store.close();
  });

  it('a settle of a key already stored is sent again in its second form: the events once, the step unwritten; a fenced one writes nothing', async () => {
    const schema = freshSchema();
    const store = new PostgresRunStore({ pool, schema });
    await store.migrate();
    await store.createRun({ id: 'r', rootName: 'W' });
    const old = await store.acquireLease('r', 'old', 600_000);
    expect(await store.settleStep('r', stepOf('a', 1), [{ type: 'e1' }, { type: 'e2' }], old)).toEqual({ written: true, events: { first: 1, last: 2 } });
    // The plain insert finds the key taken; its statement wrote nothing, the second form appends.
    expect(await store.settleStep('r', stepOf('a', 2), [{ type: 'e3' }], old)).toEqual({ written: false, events: { first: 3, last: 3 } });
    const counts = async (): Promise<unknown> =>
      (await pool.query(`SELECT (SELECT count(*)::int FROM "${schema}".steps) AS steps, (SELECT count(*)::int FROM "${schema}".event_batches) AS batches, (SELECT event_seq::int FROM "${schema}".runs) AS counter`)).rows[0];
    expect(await counts()).toEqual({ steps: 1, batches: 2, counter: 3 });
    // Taken over: both forms check the fence, so neither a new key nor a taken one writes anything.
    await store.acquireLease('r', 'new', 600_000, { takeOver: true });
    await expect(store.settleStep('r', stepOf('a', 3), [{ type: 'e4' }], old)).rejects.toThrow(RunLeaseError);
    await expect(store.settleStep('r', stepOf('b', 1), [{ type: 'e4' }], old)).rejects.toThrow(RunLeaseError);
    expect(await counts()).toEqual({ steps: 1, batches: 2, counter: 3 });
    expect((await store.loadRun('r')).steps).toEqual([stepOf('a', 1)]);
    await store.close();
  });

  it("migrate() adds the lease holder's process to an earlier schema; a lease an earlier version took is never judged by a process recorded for another", async () => {
    const schema = freshSchema();
    const store = new PostgresRunStore({ pool, schema });
    await store.migrate();
    await pool.query(`ALTER TABLE "${schema}".runs DROP COLUMN lease_process`);
    await store.createRun({ id: 'r', rootName: 'W' });
    await store.migrate();
    const columns = await pool.query(`SELECT data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'runs' AND column_name = 'lease_process'`, [schema]);
    expect(columns.rows).toEqual([{ data_type: 'json' }]);
    await store.acquireLease('r', 'me', 600_000);
    // The recorded process is gone, but an earlier version has since taken the lease (after its
    // expiry): it sets owner, token and expiry only, leaving the record of another token behind.
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
    await pool.query(
      `UPDATE "${schema}".runs SET lease_owner = 'earlier', lease_token = 'earlier-token', lease_expires_at = $1,
         lease_process = (lease_process::jsonb || jsonb_build_object('pid', $2::int))::json WHERE id = 'r'`,
      [Date.now() + 600_000, dead],
    );
    expect((await store.leaseOf('r'))?.state).toBe('alive');
    await expect(store.acquireLease('r', 'new', 600_000)).rejects.toBeInstanceOf(RunLeaseError);
    // Recorded for the token that holds the lease: taken over at once.
    await pool.query(`UPDATE "${schema}".runs SET lease_process = (lease_process::jsonb || '{"token": "earlier-token"}')::json WHERE id = 'r'`);
    expect((await store.leaseOf('r'))?.state).toBe('exited');
    expect((await store.acquireLease('r', 'new', 600_000)).owner).toBe('new');
    await store.close();
  });

  it('migrate() upgrades a schema of the previous version: its events stay readable, numbered in one sequence with the new ones', async () => {
    const schema = freshSchema();
    const store = new PostgresRunStore({ pool, schema });
    await store.migrate();
    // The previous version's schema lacked event_batches and wrote each event as a row of events.
    await pool.query(`DROP TABLE "${schema}".event_batches`);
    await store.createRun({ id: 'r', rootName: 'W' });
    const previousAppend = (types: string[]) =>
      pool.query(
        `WITH r AS (UPDATE "${schema}".runs SET event_seq = event_seq + $2 WHERE id = $1 RETURNING event_seq - $2 AS base)
         INSERT INTO "${schema}".events (run_id, seq, event) SELECT $1, r.base + e.ord, e.ev FROM r, unnest($3::json[]) WITH ORDINALITY AS e(ev, ord)`,
        ['r', types.length, types.map((type) => JSON.stringify({ type }))],
      );
    await previousAppend(['old1', 'old2']);
    await store.migrate();
    expect(await store.settleStep('r', stepOf('a', 1), [{ type: 'new3' }, { type: 'new4' }, { type: 'new5' }])).toEqual({ written: true, events: { first: 3, last: 5 } });
    // A process still on the previous version appends meanwhile (a rolling upgrade).
    await previousAppend(['old6']);
    expect(await store.appendEvents('r', [{ type: 'new7' }])).toEqual({ first: 7, last: 7 });
    const types = ['old1', 'old2', 'new3', 'new4', 'new5', 'old6', 'new7'];
    expect(await store.readEvents('r')).toEqual(types.map((type, i) => ({ seq: i + 1, event: { type } })));
    // Pages start and end inside a settle's events and cross from one form to the other.
    for (const [after, limit] of [[1, 2], [3, 1], [4, 3], [5, 10], [0, 7]] as const) {
      expect((await store.readEvents('r', { after, limit })).map((e) => e.seq)).toEqual(types.map((_t, i) => i + 1).filter((seq) => seq > after).slice(0, limit));
    }
    // The events of one write are one row, however many there are.
    expect((await pool.query(`SELECT first_seq, last_seq FROM "${schema}".event_batches ORDER BY last_seq`)).rows).toEqual([
      { first_seq: '3', last_seq: '5' },
      { first_seq: '7', last_seq: '7' },
    ]);
    await store.close();
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

/** `inner`, recording every statement sent through it or a client it lent (one round trip each). */
function counting(inner: PgPoolLike, sent: string[]): PgPoolLike {
  type Statement = Parameters<PgPoolLike['query']>[0];
  const record = (target: { query(statement: Statement, values?: unknown[]): Promise<PgResultLike> }) => (statement: Statement, values?: unknown[]) => {
    sent.push(typeof statement === 'string' ? statement : `${statement.name}: ${statement.text}`);
    return values === undefined ? target.query(statement) : target.query(statement, values);
  };
  return {
    query: record(inner),
    async connect(): Promise<PgClientLike> {
      const client = await inner.connect();
      return { query: record(client), release: (error) => client.release(error) };
    },
    end: () => inner.end(),
  };
}

const stepOf = (key: string, value: unknown): StepRecord => ({ key, status: 'completed', value, at: 1 });
const usage = { inputTokens: 1, outputTokens: 1, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };

describe.skipIf(unreachable !== undefined)('PostgresRunStore: one statement per write, committed as the fsync policy says', () => {
  /** A store on a one-connection pool, and triggers noting the synchronous_commit each written row commits under. */
  async function noted(fsync: 'checkpoints' | 'every-record' | 'off', prepare?: boolean): Promise<{ store: PostgresRunStore; single: pg.Pool; sent: string[]; modes(): Promise<string[]> }> {
    const schema = freshSchema();
    const single = new pg.Pool({ ...connection, max: 1 });
    const sent: string[] = [];
    const store = new PostgresRunStore({ pool: counting(single, sent), schema, fsync, ...(prepare === undefined ? {} : { prepare }) });
    await store.migrate();
    await single.query(`CREATE TABLE "${schema}".modes (tbl text, mode text)`);
    await single.query(`CREATE FUNCTION "${schema}".note() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO "${schema}".modes (tbl, mode) VALUES (TG_TABLE_NAME, current_setting('synchronous_commit')); RETURN NULL; END $$`);
    for (const table of ['runs', 'steps', 'calls', 'events', 'event_batches', 'signals', 'data', 'trees']) {
      await single.query(`CREATE TRIGGER note AFTER INSERT OR UPDATE ON "${schema}".${table} FOR EACH ROW EXECUTE FUNCTION "${schema}".note()`);
    }
    // Sorted: the order of rows inside one statement is the planner's.
    const modes = async (): Promise<string[]> =>
      (await single.query(`DELETE FROM "${schema}".modes RETURNING tbl, mode`)).rows.map((row) => `${row.tbl as string}:${row.mode as string}`).sort();
    return { store, single, sent, modes };
  }

  it('records commit asynchronously in their own statement, checkpoints synchronously, and the session keeps its setting', async () => {
    const { store, single, sent, modes } = await noted('checkpoints');
    try {
      await store.createRun({ id: 'r', rootName: 'W' });
      expect(await modes()).toEqual(['runs:on']);
      sent.length = 0;
      expect(await store.settleStep('r', stepOf('a', 1), [{ type: 'e1' }, { type: 'e2' }])).toEqual({ written: true, events: { first: 1, last: 2 } });
      expect(await store.settleStep('r', stepOf('b', 2), [])).toEqual({ written: true, events: { first: 3, last: 2 } });
      expect(await store.appendEvents('r', [{ type: 'e3' }])).toEqual({ first: 3, last: 3 });
      expect(await store.putStep('r', stepOf('c', 3))).toBe(true);
      expect(await store.putCall('r', { key: 'k', answer: 'x', usage, model: 'm', at: 1 })).toBe(true);
      await store.putData('r', 'plan', 'p');
      await store.putData('r', 'plan', 'q');
      await store.putTree('r', { t: 1 });
      // One statement each: no BEGIN, SET LOCAL or COMMIT of its own.
      expect(sent).toHaveLength(8);
      expect(sent.filter((text) => /^\s*(BEGIN|COMMIT|SET)\b/i.test(text))).toEqual([]);
      // As named statements: parsed and planned once per connection.
      for (const text of sent) expect(text).toMatch(/^groundswell_[0-9a-f]{32}: /);
      expect(new Set(sent.map((text) => text.split(':')[0])).size).toBe(7);
      expect(await modes()).toEqual([...Array(2).fill('runs:off'), ...Array(2).fill('event_batches:off'), ...Array(3).fill('steps:off'), 'calls:off', 'data:off', 'data:off', 'trees:off'].sort());
      // SET LOCAL ends with the statement's transaction: the connection is back to the session's value.
      expect((await single.query('SHOW synchronous_commit')).rows[0]?.synchronous_commit).toBe('on');
      // Checkpoints stay synchronous on the same connection.
      await store.putSignal('r', { name: 'go', value: true, at: 2 });
      await store.updateRun('r', { status: 'suspended' });
      expect(await modes()).toEqual(['runs:on', 'signals:on']);
      // A settle that writes no step (its key is taken) and no event writes nothing at all.
      expect(await store.settleStep('r', stepOf('a', 'again'), [])).toEqual({ written: false, events: { first: 4, last: 3 } });
      expect(await modes()).toEqual([]);
    } finally {
      await store.close();
      await single.end();
    }
  });

  it('every-record commits every record synchronously; off commits checkpoints asynchronously too', async () => {
    const every = await noted('every-record');
    try {
      await every.store.createRun({ id: 'r', rootName: 'W' });
      await every.store.settleStep('r', stepOf('a', 1), [{ type: 'e' }]);
      await every.store.putStep('r', stepOf('b', 1));
      expect(await every.modes()).toEqual(['event_batches:on', 'runs:on', 'runs:on', 'steps:on', 'steps:on']);
    } finally {
      await every.store.close();
      await every.single.end();
    }
    // Unprepared (behind a pooler that keeps no prepared statements): the same, as plain text.
    const off = await noted('off', false);
    try {
      await off.store.createRun({ id: 'r', rootName: 'W' });
      await off.store.putSignal('r', { name: 'go', value: true, at: 2 });
      await off.store.settleStep('r', stepOf('a', 1), [{ type: 'e' }]);
      expect(await off.modes()).toEqual(['event_batches:off', 'runs:off', 'runs:off', 'signals:off', 'steps:off']);
      expect((await off.single.query('SHOW synchronous_commit')).rows[0]?.synchronous_commit).toBe('on');
      expect(off.sent.filter((text) => text.startsWith('groundswell_'))).toEqual([]);
    } finally {
      await off.store.close();
      await off.single.end();
    }
  });

  it('settleStep is atomic: a backend killed, or a write failing, after the events went in leaves neither events nor step', async () => {
    const schema = freshSchema();
    const store = new PostgresRunStore({ connection, schema });
    await store.migrate();
    await store.createRun({ id: 'r', rootName: 'W' });
    const lockKey = Math.floor(Math.random() * 2 ** 31);
    // Runs at the end of the statement, after every row of it went in: held there on a lock the test owns.
    await pool.query(`CREATE FUNCTION "${schema}".hold() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock(${lockKey}); RETURN NULL; END $$`);
    await pool.query(`CREATE TRIGGER hold AFTER INSERT ON "${schema}".steps FOR EACH ROW EXECUTE FUNCTION "${schema}".hold()`);
    const holder = await pool.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [lockKey]);
      const settling = store.settleStep('r', stepOf('a', 1), [{ type: 'e1' }, { type: 'e2' }]).then(
        () => undefined,
        (error: unknown) => error,
      );
      // Killed twice: the store reads back that the first kill left nothing and sends the settle
      // once more (decision 0068), then reports the second loss.
      const killed: number[] = [];
      while (killed.length < 2) {
        const waiting = await pool.query(
          `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = $1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          [lockKey],
        );
        const pid = waiting.rows.map((row) => row.pid as number).find((found) => !killed.includes(found));
        if (pid === undefined) await new Promise((wake) => setTimeout(wake, 10));
        else {
          await pool.query('SELECT pg_terminate_backend($1)', [pid]);
          killed.push(pid);
        }
      }
      const lost = await settling;
      expect(lost).toBeInstanceOf(RunStoreError);
      expect((lost as Error).cause).toHaveProperty('code', '57P01');
    } finally {
      await holder.query('SELECT pg_advisory_unlock($1)', [lockKey]);
      holder.release();
    }
    expect((await store.loadRun('r')).steps).toEqual([]);
    expect(await store.readEvents('r')).toEqual([]);
    // A write failing there (the server's disk full) leaves nothing either.
    await pool.query(`CREATE OR REPLACE FUNCTION "${schema}".hold() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'could not extend file' USING ERRCODE = 'disk_full'; END $$`);
    const full = await store.settleStep('r', stepOf('a', 1), [{ type: 'e1' }]).then(() => undefined, (e: unknown) => e);
    expect(full).toHaveProperty('code', '53100');
    expect((await store.loadRun('r')).steps).toEqual([]);
    expect(await store.readEvents('r')).toEqual([]);
    await pool.query(`DROP TRIGGER hold ON "${schema}".steps`);
    // Nothing was numbered: the next settle starts at 1, and the store's pool replaced the killed connection.
    expect(await store.settleStep('r', stepOf('a', 1), [{ type: 'e1' }])).toEqual({ written: true, events: { first: 1, last: 1 } });
    await store.close();
  });

  it('settleStep with a key too long for an index: a RunStoreError naming the run and the key, and its events not written', async () => {
    const store = new PostgresRunStore({ pool, schema: freshSchema() });
    await store.migrate();
    await store.createRun({ id: 'r', rootName: 'W' });
    const long = randomBytes(6000).toString('base64');
    for (const events of [[{ type: 'e' }], []]) {
      const error = await store.settleStep('r', stepOf(long, 1), events).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(RunStoreError);
      expect((error as Error).message).toContain('run "r"');
      expect((error as Error).message).toContain(long.slice(0, 40));
      expect((error as Error).cause).toHaveProperty('code', '54000');
    }
    expect(await store.readEvents('r')).toEqual([]);
    expect(await store.appendEvents('r', [{ type: 'e' }])).toEqual({ first: 1, last: 1 });
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
