import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PG_CONNECTION, probePostgres } from '../../support/postgres-service.js';
import { installFsFaults } from './fs-faults.js';
import { faultyPool, plannedDrops } from './faulty-pool.js';
import { faultyStore } from './faulty-store.js';
import { CALL_FAULTS, FS_FAULTS, PG_FAULTS, type FaultKind } from './faults.js';
import { runSchedule, type ScheduleReport, type StoreKit } from './schedule.js';
import type { SimLibrary } from './sim-workflow.js';

// Every file operation of the store goes through the schedule's fault hook (see fs-faults.ts).
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const { hookedFs } = await import('./fs-faults.js');
  return hookedFs(real);
});

/*
 * The fault simulator. Each seed picks one to three faults (a kill, a pause past the lease, a clock
 * jump, a short write, a full disk, an I/O error, a failed fsync, a dropped connection) at points
 * of an uninterrupted run, runs the workflow of sim-workflow.ts through them in as many simulated
 * processes as it takes, and checks the invariants of invariants.ts. A failing seed replays alone:
 *   GROUNDSWELL_SIM_SEED=<seed> GROUNDSWELL_SIM_STORE=<journal|postgres> npx vitest run tests/durable/simulator
 * The workflow streams text, so its run also stores events every 50 ms of real time: a fault
 * planned at the n-th store call may meet another call on a replay. The report names the faults
 * and the processes' notes; rerun the seed a few times when it does not fail at once.
 */
const SEEDS = Number(process.env.GROUNDSWELL_SIM_SEEDS ?? 150);
const ONE_SEED = process.env.GROUNDSWELL_SIM_SEED === undefined ? undefined : Number(process.env.GROUNDSWELL_SIM_SEED);
const ONE_STORE = process.env.GROUNDSWELL_SIM_STORE;
const postgres = await probePostgres();

let lib: SimLibrary;
let journal: typeof import('groundswell/durable');
let postgresEntry: typeof import('groundswell/postgres');
const crashes: unknown[] = [];
const onCrash = (error: unknown): void => void crashes.push(error);

beforeAll(async () => {
  // Loaded afresh so the stores see the hooked node:fs even where another file loaded them first.
  vi.resetModules();
  lib = { gs: await import('groundswell'), testing: await import('groundswell/testing') };
  journal = await import('groundswell/durable');
  postgresEntry = await import('groundswell/postgres');
  process.on('unhandledRejection', onCrash);
  process.on('uncaughtException', onCrash);
});

afterAll(() => {
  process.off('unhandledRejection', onCrash);
  process.off('uncaughtException', onCrash);
});

function journalKit(dir: string): StoreKit {
  return {
    kind: 'journal',
    async open(proc, world) {
      const store = new journal.JournalRunStore({ dir, clock: world.clock, fsync: 'every-record' });
      return { store: faultyStore(store, proc, world), close: () => store.close() };
    },
    async clean() {
      const store = new journal.JournalRunStore({ dir });
      return { store, close: () => store.close() };
    },
    wire: (world) => installFsFaults(world, dir),
  };
}

function postgresKit(schema: string): StoreKit {
  const config = typeof PG_CONNECTION === 'string' ? { connectionString: PG_CONNECTION } : PG_CONNECTION;
  let drops: ReturnType<typeof plannedDrops> = [];
  return {
    kind: 'postgres',
    async open(proc, world) {
      const pool = faultyPool(new pg.Pool({ ...config, max: 4 }), proc, world, drops);
      const store = new postgresEntry.PostgresRunStore({ pool, schema, clock: world.clock, fsync: 'off' });
      return { store: faultyStore(store, proc, world), close: () => pool.destroy() };
    },
    async clean() {
      const store = new postgresEntry.PostgresRunStore({ connection: PG_CONNECTION, schema });
      return { store, close: () => store.close() };
    },
    wire: (world) => {
      drops = plannedDrops(world);
      return () => undefined;
    },
  };
}

/** Runs the seeds on one kit and returns every report; the baseline run sets the fault ranges. */
async function explore(kit: StoreKit): Promise<ScheduleReport[]> {
  const base = await runSchedule(lib, kit, 0, { call: 1, fs: 1, pg: 1 }, true);
  expect({ violations: base.violations.filter((v) => !v.includes('its parent')), notes: base.notes }, 'the uninterrupted run').toEqual({ violations: [], notes: [] });
  const seeds = ONE_SEED !== undefined ? [ONE_SEED] : [...Array(SEEDS).keys()].map((i) => i + 1);
  const reports: ScheduleReport[] = [];
  for (const seed of seeds) {
    const report = await runSchedule(lib, kit, seed, base.counts);
    reports.push(report);
    if (ONE_SEED !== undefined) console.log(JSON.stringify({ ...report, injected: Object.fromEntries(report.injected) }, null, 2));
  }
  return reports;
}

function totals<K>(maps: Array<Map<K, number>>): Map<K, number> {
  const out = new Map<K, number>();
  for (const map of maps) for (const [key, n] of map) out.set(key, (out.get(key) ?? 0) + n);
  return out;
}

const listed = <K>(map: Map<K, number>): string => [...map].sort().map(([key, n]) => `${String(key)} ${n}`).join(', ');

function summary(reports: ScheduleReport[]): string {
  const injected = totals(reports.map((report) => report.injected));
  const outcomes = totals(reports.map((report) => report.outcomes));
  const failed = reports.filter((report) => report.violations.length > 0);
  return (
    `${reports.length} schedules, ${[...injected.values()].reduce((a, b) => a + b, 0)} faults injected (${listed(injected)}); ` +
    `processes ended: ${listed(outcomes)}; ${failed.length} with invariant violations`
  );
}

/** Every kind of fault of the store struck somewhere (a simulator that injects nothing proves nothing). */
function missingKinds(reports: ScheduleReport[], kinds: readonly FaultKind[]): FaultKind[] {
  const injected = totals(reports.map((report) => report.injected));
  return ONE_SEED !== undefined ? [] : kinds.filter((kind) => (injected.get(kind) ?? 0) === 0);
}

function failures(reports: ScheduleReport[]): string[] {
  return reports
    .filter((report) => report.violations.length > 0)
    .map((report) => `seed ${report.seed} (${report.store}; ${report.faults.map((f) => `${f.kind}@${f.at}`).join(', ')}): ${report.violations.join('; ')} [${report.notes.join(' | ')}]`);
}

describe('the fault simulator', () => {
  it.skipIf(ONE_STORE === 'postgres')('on the journal store: every schedule keeps every promise', async () => {
    const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
    const dir = mkdtempSync(join(base, 'gs-sim-'));
    try {
      const reports = await explore(journalKit(dir));
      console.log(`fault simulator, journal store: ${summary(reports)}`);
      expect(failures(reports)).toEqual([]);
      expect(missingKinds(reports, [...CALL_FAULTS, ...FS_FAULTS])).toEqual([]);
      expect(crashes).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);

  it.skipIf(!postgres.ok || ONE_STORE === 'journal')('on PostgreSQL: every schedule keeps every promise', async () => {
    const schema = `gs_sim_${process.pid}`;
    const setup = new postgresEntry.PostgresRunStore({ connection: PG_CONNECTION, schema });
    await setup.migrate();
    await setup.close();
    try {
      const reports = await explore(postgresKit(schema));
      console.log(`fault simulator, PostgreSQL: ${summary(reports)}`);
      expect(failures(reports)).toEqual([]);
      expect(missingKinds(reports, [...CALL_FAULTS, ...PG_FAULTS])).toEqual([]);
      expect(crashes).toEqual([]);
    } finally {
      const client = new pg.Client(typeof PG_CONNECTION === 'string' ? { connectionString: PG_CONNECTION } : PG_CONNECTION);
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  }, 600_000);
});
