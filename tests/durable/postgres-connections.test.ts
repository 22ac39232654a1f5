import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWorkflow } from 'groundswell';
import { RunStoreError, type StepRecord } from 'groundswell/durable';
import { PostgresRunStore } from 'groundswell/postgres';
import { PgProxy } from '../support/pg-proxy.js';
import { PG_CONNECTION, probePostgres } from '../support/postgres-service.js';

// Needs a PostgreSQL server (see tests/support/postgres-service.ts); skipped with the reason
// without one. The store reaches it through a proxy (tests/support/pg-proxy.ts) that can drop
// connections; a separate client terminates backends, holds locks and reads the rows back.

const probe = await probePostgres();
const direct: pg.PoolConfig = typeof PG_CONNECTION === 'string' ? { connectionString: PG_CONNECTION } : PG_CONNECTION;
const admin = new pg.Pool({ ...direct, max: 4 });
const schemas: string[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

// A lost connection must never reach the process: record anything uncaught while these tests run.
const uncaught: unknown[] = [];
const onUncaught = (error: unknown): void => {
  uncaught.push(error);
};

beforeAll(() => {
  process.on('uncaughtException', onUncaught);
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  expect(uncaught.splice(0)).toEqual([]);
});

afterAll(async () => {
  process.off('uncaughtException', onUncaught);
  if (probe.ok) for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

const stepOf = (key: string, value: unknown): StepRecord => ({ key, status: 'completed', value, at: 1 });
const usage = { inputTokens: 1, outputTokens: 1, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };

interface Setup {
  proxy: PgProxy;
  /** The application_name of the store's connections: how the server-side tests find them. */
  app: string;
  schema: string;
  store: PostgresRunStore;
}

/** A migrated schema with run "r", and a store with its own pool reaching the server through a proxy. */
async function setup(pool: pg.PoolConfig = {}): Promise<Setup> {
  const proxy = await PgProxy.start();
  const app = `gs_conn_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const schema = `gs_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  schemas.push(schema);
  const store = new PostgresRunStore({ connection: proxy.config({ application_name: app, ...pool }), schema });
  cleanups.push(() => proxy.close(), () => store.close());
  await store.migrate();
  await store.createRun({ id: 'r', rootName: 'W' });
  return { proxy, app, schema, store };
}

/** Terminates every backend of `app` from outside; how many there were. */
async function terminateAll(app: string): Promise<number> {
  const result = await admin.query(
    `SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = $1) AS killed`,
    [app],
  );
  return result.rows[0]?.n as number;
}

/** Polls the server until `probe` gives a value: waits on progress the test cannot be told of. */
async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((wake) => setTimeout(wake, 5));
  }
}

/** The pids of `app`'s backends waiting for a lock, once there are `count` of them. */
function lockWaiters(app: string, count: number): Promise<number[]> {
  return until(async () => {
    const rows = (await admin.query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock' ORDER BY pid`, [app])).rows;
    return rows.length === count ? rows.map((row) => row.pid as number) : undefined;
  });
}

function gone(pid: number): Promise<true> {
  return until(async () => ((await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rows.length === 0 ? true : undefined));
}

/** A transaction of the test's own holding run "r"'s row FOR UPDATE: every write of the run waits for `release()`. */
async function holdRun(schema: string): Promise<{ release(): Promise<void> }> {
  const client = await admin.connect();
  await client.query('BEGIN');
  await client.query(`SELECT 1 FROM "${schema}".runs WHERE id = 'r' FOR UPDATE`);
  return {
    async release() {
      await client.query('ROLLBACK');
      client.release();
    },
  };
}

/** What the schema holds for run "r", read with the test's own client. */
async function stored(schema: string): Promise<{ steps: string[]; batches: string[]; counter: number; events: number }> {
  const steps = (await admin.query(`SELECT key FROM "${schema}".steps WHERE run_id = 'r' ORDER BY key`)).rows.map((row) => row.key as string);
  const batchRows = (await admin.query(`SELECT first_seq, last_seq FROM "${schema}".event_batches WHERE run_id = 'r' ORDER BY last_seq`)).rows;
  const counter = Number((await admin.query(`SELECT event_seq FROM "${schema}".runs WHERE id = 'r'`)).rows[0]?.event_seq);
  const events = batchRows.reduce((sum, row) => sum + Number(row.last_seq) - Number(row.first_seq) + 1, 0);
  return { steps, batches: batchRows.map((row) => `${row.first_seq as string}-${row.last_seq as string}`), counter, events };
}

function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe.skipIf(!probe.ok)('PostgresRunStore when the server ends its connections', () => {
  it('idle connections ended by the server (a restart, a failover) do not kill the process; the next writes go to new connections', async () => {
    const { proxy, app, schema, store } = await setup({ max: 4 });
    // Side by side, so the pool holds several connections.
    await Promise.all(['a', 'b', 'c', 'd'].map((key, i) => store.putStep('r', stepOf(key, i))));
    const opened = proxy.open;
    expect(opened).toBeGreaterThan(0);
    expect(await terminateAll(app)).toBe(opened);
    // Every client, and so the pool, has seen its connection end.
    await proxy.whenOpen((open) => open === 0);
    expect(await store.settleStep('r', stepOf('e', 4), [{ type: 'e1' }, { type: 'e2' }])).toEqual({ written: true, events: { first: 1, last: 2 } });
    await store.putData('r', 'plan', 'p');
    await store.updateRun('r', { status: 'completed' });
    expect((await store.loadRun('r')).data).toEqual({ plan: 'p' });
    expect(await stored(schema)).toEqual({ steps: ['a', 'b', 'c', 'd', 'e'], batches: ['1-2'], counter: 2, events: 2 });
  });

  it('a pool the caller gives gets the store\'s listener once; the caller\'s own listener still hears every error', async () => {
    const { proxy, app, schema } = await setup();
    const bare = new pg.Pool(proxy.config({ application_name: app, max: 2 }));
    const heard: Error[] = [];
    const listening = new pg.Pool(proxy.config({ application_name: app, max: 2 }));
    listening.on('error', (error) => heard.push(error));
    cleanups.push(() => bare.end(), () => listening.end());
    const stores = [bare, listening, listening].map((pool) => new PostgresRunStore({ pool, schema }));
    expect([bare.listenerCount('error'), listening.listenerCount('error')]).toEqual([1, 2]);
    await Promise.all(stores.map((store, i) => store.putStep('r', stepOf(`k${i}`, i))));
    const opened = proxy.open;
    expect(await terminateAll(app)).toBe(opened);
    await proxy.whenOpen((open) => open === 0);
    expect(heard.map((error) => (error as { code?: string }).code)).toEqual(heard.map(() => '57P01'));
    expect(heard.length).toBeGreaterThan(0);
    await Promise.all(stores.map((store, i) => store.putStep('r', stepOf(`n${i}`, i))));
    expect((await stored(schema)).steps).toEqual(['k0', 'k1', 'k2', 'n0', 'n1', 'n2']);
    await Promise.all(stores.map((store) => store.close()));
  });

  it('a durable run goes on when the server ends its connections between two steps', async () => {
    const { proxy, app, schema, store } = await setup({ max: 2 });
    const run = createWorkflow({ name: 'Restarted', durable: { store, runId: 'restarted', leaseMs: 3_600_000 } }, async (ctx) => {
      const first = await ctx.step('before', () => 1);
      await ctx.step('outage', async () => {
        await terminateAll(app);
        await proxy.whenOpen((open) => open === 0);
      });
      return first + (await ctx.step('after', () => 2));
    });
    expect(await run.run()).toBe(3);
    const keys = (await admin.query(`SELECT key FROM "${schema}".steps WHERE run_id = 'restarted'`)).rows.map((row) => row.key as string);
    expect(keys).toHaveLength(3);
    expect((await store.getRun('restarted'))?.status).toBe('completed');
  });

  it('connections a network dropped silently: reads, repeatable writes, transactions and a settle are sent again once on a new connection', async () => {
    const { proxy, schema, store } = await setup({ max: 1 });
    await store.putStep('r', stepOf('a', 1));
    const resent = async <T>(call: () => Promise<T>): Promise<T> => {
      proxy.severAll();
      const before = proxy.accepted;
      const result = await call();
      // The first send went down the dead connection; the second one opened a new connection.
      expect(proxy.accepted).toBe(before + 1);
      return result;
    };
    expect((await resent(() => store.getRun('r')))?.id).toBe('r');
    expect(await resent(() => store.putStep('r', stepOf('b', 2)))).toBe(true);
    expect(await resent(() => store.putCall('r', { key: 'c', answer: 'x', usage, model: 'm', at: 1 }))).toBe(true);
    await resent(() => store.putData('r', 'plan', 'p'));
    expect((await resent(() => store.loadRun('r'))).steps.map((step) => step.key)).toEqual(['a', 'b']);
    expect((await resent(() => store.updateRun('r', { status: 'suspended' }))).status).toBe('suspended');
    // Not repeatable: read back first (nothing of it is stored), then sent once more.
    expect(await resent(() => store.settleStep('r', stepOf('s', 3), [{ type: 'e1' }]))).toEqual({ written: true, events: { first: 1, last: 1 } });
    expect(await stored(schema)).toEqual({ steps: ['a', 'b', 's'], batches: ['1-1'], counter: 1, events: 1 });
  });

  it('while the server refuses connections a call is a RunStoreError; once it is back the store works again', async () => {
    const { proxy, store } = await setup({ max: 1 });
    proxy.dropAll();
    await proxy.whenOpen((open) => open === 0);
    await proxy.refuse();
    const refused = await rejection(store.putStep('r', stepOf('a', 1)));
    expect(refused).toBeInstanceOf(RunStoreError);
    expect((refused as Error).cause).toHaveProperty('code', 'ECONNREFUSED');
    await proxy.accept();
    expect(await store.putStep('r', stepOf('a', 1))).toBe(true);
  });
});

describe.skipIf(!probe.ok)('PostgresRunStore: a write in flight when its connection is lost is stored once or reported', () => {
  it('a settle whose backend is killed mid-statement: read back (nothing committed), sent again, stored once', async () => {
    const { app, schema, store } = await setup();
    const hold = await holdRun(schema);
    const settling = store.settleStep('r', stepOf('a', 1), [{ type: 'e1' }, { type: 'e2' }]);
    const [writer] = await lockWaiters(app, 1);
    await admin.query('SELECT pg_terminate_backend($1)', [writer]);
    await gone(writer as number);
    // The store's read-back waits on the run's row behind the test's lock.
    await lockWaiters(app, 1);
    expect(await stored(schema)).toEqual({ steps: [], batches: [], counter: 0, events: 0 });
    await hold.release();
    expect(await settling).toEqual({ written: true, events: { first: 1, last: 2 } });
    expect(await stored(schema)).toEqual({ steps: ['a'], batches: ['1-2'], counter: 2, events: 2 });
  });

  it('a settle whose connection drops while the server goes on and commits it: read back as committed, not sent again', async () => {
    const { proxy, app, schema, store } = await setup();
    const hold = await holdRun(schema);
    const settling = store.settleStep('r', stepOf('a', 1), [{ type: 'e1' }, { type: 'e2' }]);
    await lockWaiters(app, 1);
    proxy.dropAll();
    // The statement still waits on the server; the store's read-back waits behind it.
    await lockWaiters(app, 2);
    await hold.release();
    expect(await settling).toEqual({ written: true, events: { first: 1, last: 2 } });
    expect(await stored(schema)).toEqual({ steps: ['a'], batches: ['1-2'], counter: 2, events: 2 });
    expect(await store.settleStep('r', stepOf('b', 2), [{ type: 'e3' }])).toEqual({ written: true, events: { first: 3, last: 3 } });
  });

  it('a putStep and a createRun committed by the server after their connection dropped: sent again, they find their own record', async () => {
    const { proxy, app, schema, store } = await setup();
    const hold = await holdRun(schema);
    const putting = store.putStep('r', stepOf('a', 1));
    await lockWaiters(app, 1);
    proxy.dropAll();
    await hold.release();
    expect(await putting).toBe(true);
    // The key holding another record is still `false`.
    expect(await store.putStep('r', stepOf('a', 'other'))).toBe(false);
    // createRun: the test's own uncommitted row of the id holds the store's insert.
    const other = await admin.connect();
    await other.query('BEGIN');
    await other.query(`INSERT INTO "${schema}".runs (id, root_name, status, created_at, record) VALUES ('r2', 'X', 'running', 0, '{}')`);
    const creating = store.createRun({ id: 'r2', rootName: 'W' });
    await lockWaiters(app, 1);
    proxy.dropAll();
    await other.query('ROLLBACK');
    other.release();
    expect((await creating).id).toBe('r2');
    expect((await admin.query(`SELECT root_name FROM "${schema}".runs WHERE id = 'r2'`)).rows).toEqual([{ root_name: 'W' }]);
    expect((await stored(schema)).steps).toEqual(['a']);
  });

  it('an append whose connection drops in flight is a RunStoreError; its events are stored at most once and the counter matches them', async () => {
    const { proxy, app, schema, store } = await setup();
    const hold = await holdRun(schema);
    const appending = rejection(store.appendEvents('r', [{ type: 'e1' }, { type: 'e2' }]));
    const [writer] = await lockWaiters(app, 1);
    proxy.dropAll();
    const error = await appending;
    expect(error).toBeInstanceOf(RunStoreError);
    expect((error as Error).message).toContain('may or may not have been stored');
    await hold.release();
    await gone(writer as number);
    const after = await stored(schema);
    expect(after.batches.length).toBeLessThanOrEqual(1);
    expect(after.counter).toBe(after.events);
    expect(await store.appendEvents('r', [{ type: 'e3' }])).toEqual({ first: after.counter + 1, last: after.counter + 1 });
  });
});

describe.skipIf(!probe.ok)('PostgresRunStore: what a write waits for by default', () => {
  /** Triggers noting the synchronous_commit each written row of `schema` commits under. */
  async function noteModes(schema: string): Promise<() => Promise<string[]>> {
    await admin.query(`CREATE TABLE "${schema}".modes (tbl text, mode text)`);
    await admin.query(`CREATE FUNCTION "${schema}".note() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO "${schema}".modes (tbl, mode) VALUES (TG_TABLE_NAME, current_setting('synchronous_commit')); RETURN NULL; END $$`);
    for (const table of ['runs', 'steps', 'calls', 'event_batches', 'signals', 'data', 'trees']) {
      await admin.query(`CREATE TRIGGER note AFTER INSERT OR UPDATE ON "${schema}".${table} FOR EACH ROW EXECUTE FUNCTION "${schema}".note()`);
    }
    return async () => (await admin.query(`DELETE FROM "${schema}".modes RETURNING tbl, mode`)).rows.map((row) => `${row.tbl as string}:${row.mode as string}`).sort();
  }

  async function writeOneOfEach(store: PostgresRunStore): Promise<void> {
    await store.createRun({ id: 'r', rootName: 'W' });
    await store.settleStep('r', stepOf('a', 1), [{ type: 'e1' }]);
    await store.settleStep('r', stepOf('b', 1), []);
    await store.putStep('r', stepOf('c', 1));
    await store.putCall('r', { key: 'k', answer: 'x', usage, model: 'm', at: 1 });
    await store.appendEvents('r', [{ type: 'e2' }]);
    await store.putData('r', 'plan', 'p');
    await store.putTree('r', { t: 1 });
    await store.putSignal('r', { name: 'go', value: true, at: 2 });
    await store.updateRun('r', { status: 'completed' });
  }

  it('every write commits synchronously unless asked otherwise; `checkpoints` still commits steps, events, data and the tree asynchronously', async () => {
    const written = ['calls', 'data', 'event_batches', 'event_batches', 'runs', 'runs', 'runs', 'runs', 'signals', 'steps', 'steps', 'steps', 'trees'];
    for (const fsync of [undefined, 'checkpoints'] as const) {
      const schema = `gs_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
      schemas.push(schema);
      const store = new PostgresRunStore({ connection: direct, schema, ...(fsync === undefined ? {} : { fsync }) });
      try {
        await store.migrate();
        const modes = await noteModes(schema);
        await writeOneOfEach(store);
        // Under `checkpoints` creating the run, a signal and updateRun commit synchronously.
        const expected =
          fsync === undefined
            ? written.map((table) => `${table}:on`)
            : [
                ...['calls', 'data', 'event_batches', 'event_batches', 'runs', 'runs', 'steps', 'steps', 'steps', 'trees'].map((table) => `${table}:off`),
                ...['runs', 'runs', 'signals'].map((table) => `${table}:on`),
              ];
        expect(await modes()).toEqual(expected.sort());
      } finally {
        await store.close();
      }
    }
  });
});
