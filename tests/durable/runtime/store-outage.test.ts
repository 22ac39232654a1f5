import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkflow, resume, RunInterruptedError, type Workflow } from 'groundswell';
import { JournalRunStore, type Lease, type RunStore } from 'groundswell/durable';
import { PostgresRunStore } from 'groundswell/postgres';
import { deferred } from '../../support/deferred.js';
import { PgProxy } from '../../support/pg-proxy.js';
import { PG_CONNECTION, probePostgres } from '../../support/postgres-service.js';

const postgres = await probePostgres();
const dirs: string[] = [];
const schemas: string[] = [];

afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  if (schemas.length === 0) return;
  const client = new pg.Client(typeof PG_CONNECTION === 'string' ? { connectionString: PG_CONNECTION } : PG_CONNECTION);
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

function journalDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gs-outage-'));
  dirs.push(dir);
  return dir;
}

/** A full disk, as the lease's renewals see it while `full` is set; `failures` counts them. */
function fullDiskDuringRenewals(store: RunStore): { store: RunStore; full: boolean; failures: number } {
  const state = { store, full: false, failures: 0 };
  state.store = new Proxy(store, {
    get(target, name, receiver) {
      if (name !== 'acquireLease') return Reflect.get(target, name, receiver);
      return async (...args: Parameters<RunStore['acquireLease']>): Promise<Lease> => {
        const lease = await target.acquireLease(...args);
        const renew = lease.renew.bind(lease);
        return Object.assign(Object.create(lease) as Lease, {
          renew: async () => {
            if (!state.full) return renew();
            state.failures += 1;
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
          },
        });
      };
    },
  });
  return state;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 6_000 && !condition(); i += 1) await new Promise((wake) => setTimeout(wake, 5));
  if (!condition()) throw new Error(`gave up waiting for ${what}`);
}

/** Two steps; the first waits for `release` while the test makes trouble. `ran` counts bodies. */
function order(store: RunStore, runId: string, release: Promise<void>, ran: string[]): () => Workflow<string> {
  return () =>
    createWorkflow({ name: 'Outage', durable: { store, runId, leaseMs: 1_500 } }, async (ctx) => {
      const a = await ctx.step('pack', async () => {
        ran.push('pack');
        await release;
        return 'packed';
      });
      const b = await ctx.step('ship', async () => {
        ran.push('ship');
        return 'shipped';
      });
      return `${a}+${b}`;
    });
}

describe('a store in trouble while a run holds its lease', () => {
  it('a disk full for a while during renewals: the run completes, never cancelled', async () => {
    const faulty = fullDiskDuringRenewals(new JournalRunStore({ dir: journalDir(), fsync: 'off' }));
    const release = deferred();
    const ran: string[] = [];
    const running = order(faulty.store, 'full-disk', release.promise, ran)().run();
    await until(() => ran.length === 1, 'the first step to start');
    faulty.full = true;
    await until(() => faulty.failures >= 2, 'two renewals to fail');
    faulty.full = false;
    release.resolve();
    expect(await running).toBe('packed+shipped');
    expect((await faulty.store.getRun('full-disk'))?.status).toBe('completed');
  });

  it('a disk full for longer than the lease: the run stops in this process, stays running, and a resume finishes it', async () => {
    const faulty = fullDiskDuringRenewals(new JournalRunStore({ dir: journalDir(), fsync: 'off' }));
    const release = deferred();
    const ran: string[] = [];
    const build = order(faulty.store, 'long-full-disk', release.promise, ran);
    const workflow = build();
    let cancelled = false;
    workflow.addObserver({ onEvent: (event) => void (event.type === 'cancelled' && (cancelled = true)) });
    const running = workflow.run().catch((error: unknown) => error);
    await until(() => ran.length === 1, 'the first step to start');
    faulty.full = true;
    await until(() => cancelled, 'the run to give its lease up');
    release.resolve();
    const stopped = await running;
    expect(stopped).toBeInstanceOf(RunInterruptedError);
    expect((stopped as Error).message).toContain('could not be renewed');
    // Never stored as ended: the store's trouble is not the run's outcome.
    expect((await faulty.store.getRun('long-full-disk'))?.status).toBe('running');
    faulty.full = false;
    const again = deferred();
    again.resolve();
    const result = await resumeWhenFree('long-full-disk', faulty.store, order(faulty.store, 'long-full-disk', again.promise, ran));
    expect(result).toBe('packed+shipped');
    expect(ran).toEqual(['pack', 'pack', 'ship']);
  });

  it.skipIf(!postgres.ok)('PostgreSQL refusing connections for 1.2 s during renewals: the run completes, never cancelled', async () => {
    const schema = `gs_outage_${process.pid}`;
    schemas.push(schema);
    const proxy = await PgProxy.start();
    const store = new PostgresRunStore({ connection: proxy.config({ application_name: 'gs-outage' }), schema });
    const direct = new PostgresRunStore({ connection: PG_CONNECTION, schema });
    try {
      await store.migrate();
      const release = deferred();
      const ran: string[] = [];
      const running = order(store, 'db-outage', release.promise, ran)().run();
      await until(() => ran.length === 1, 'the first step to start');
      proxy.dropAll();
      await proxy.refuse();
      // The outage's length is what this test is about: 1.2 s, almost a lease (1.5 s).
      await new Promise((wake) => setTimeout(wake, 1_200));
      await proxy.accept();
      release.resolve();
      expect(await running).toBe('packed+shipped');
      expect((await direct.getRun('db-outage'))?.status).toBe('completed');
    } finally {
      await store.close();
      await direct.close();
      await proxy.close();
    }
  });
});

/** Resumes once the interrupted holder's lease has lapsed (it could not release it). */
async function resumeWhenFree(runId: string, store: RunStore, build: () => Workflow<string>): Promise<string> {
  for (;;) {
    try {
      return await resume<string>(runId, { store, workflows: { Outage: build } });
    } catch (error) {
      const expiresAt = (error as { expiresAt?: number }).expiresAt;
      if (expiresAt === undefined) throw error;
      await new Promise((wake) => setTimeout(wake, Math.max(0, expiresAt - Date.now()) + 20));
    }
  }
}
