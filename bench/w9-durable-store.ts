/**
 * W9: the cost of durability per settled step: the step record and one batch of its two events
 * (stepStart, stepEnd), written as a durable run writes them: one `settleStep` where the store has
 * it (else `appendEvents` then `putStep`), awaited in sequence, under the run's lease (the fence). On the
 * embedded JournalRunStore (default fsync policy: no fsync per step; and `every-record`, info)
 * and on PostgreSQL (skipped with the reason printed when no server is reachable: env
 * GROUNDSWELL_PG_URL, else the local socket, database groundswell_test).
 * Targets (all recorded gates): the journal store ≤ 50 µs per step, PostgreSQL ≤ 300 µs, and each
 * store's cost ≤ 5% of a 10 ms model call. Without a reachable PostgreSQL its gates are NOT RUN. Floor (info): JSON.stringify of the same
 * records, what any store must do at least; on PostgreSQL also one round trip of a named
 * `SELECT 1` through the same pool (what the wire and the driver cost on this machine now), and a
 * settle with ten events (info: what more events cost, decision 0058).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { JournalRunStore, type Lease, type RunStore, type StepRecord } from 'groundswell/durable';
import { PostgresRunStore } from 'groundswell/postgres';
import { fmtUs, holder, measure, measureInterleaved, recordNotRun, recordRatio, section, table, type Measurement } from './harness.js';

const MODEL_CALL_NS = 10_000_000;
const TARGET_SHARE = 0.05;
const TARGET_EMBEDDED_NS = 50_000;
/** PostgreSQL on the local socket: ≤ 300 µs per settled step. */
const TARGET_PG_NS = 300_000;
const PG_ABSOLUTE_GATE = `postgres store per step / ${TARGET_PG_NS / 1000} µs`;
const PG_SHARE_GATE = 'postgres store per step / 10 ms model call';
/** With every settled step committed synchronously (the default): ≤ 1.5× one synchronously committed INSERT. */
const TARGET_PG_VS_INSERT = 1.5;
const PG_INSERT_GATE = 'postgres store per step / one synchronous INSERT';

function stepRecord(i: number): StepRecord {
  return {
    key: `TriageWorkflow/classify#${i}`,
    status: 'completed',
    value: { ticket: `T-${i}`, category: 'billing', priority: 2, tags: ['refund', 'card'], summary: 'Customer was charged twice for one order.' },
    fingerprint: '9f2c1e5a7b3d4c6e',
    at: 1_700_000_000_000 + i,
  };
}

/** The step's start and end, and `extra` more events of the same size between them. */
function stepEvents(i: number, extra = 0): unknown[] {
  const base = { workflowId: 'wf-1', nodeId: `node-${i}`, name: 'classify' };
  return [
    { type: 'stepStart', ...base, timestamp: 1_700_000_000_000 + i },
    ...Array.from({ length: extra }, (_e, n) => ({ type: 'log', ...base, timestamp: 1_700_000_000_000 + i, message: `line ${n}` })),
    { type: 'stepEnd', ...base, timestamp: 1_700_000_000_001 + i, durationMs: 1 },
  ];
}

/**
 * `steps` settled steps in a row, as one measured round. `twoCalls`: the way a store without
 * `settleStep` is written (info: what one statement saves).
 */
function settleRound(store: RunStore, lease: Lease, steps: number, twoCalls = false, extraEvents = 0): () => Promise<void> {
  let next = 0;
  const runId = lease.runId;
  const settle = twoCalls ? undefined : store.settleStep?.bind(store);
  // Under the run's lease, as a durable run writes: the store checks it with every write.
  return async () => {
    for (let n = 0; n < steps; n += 1) {
      const i = next++;
      if (settle !== undefined) await settle(runId, stepRecord(i), stepEvents(i, extraEvents), lease);
      else {
        await store.appendEvents(runId, stepEvents(i, extraEvents), lease);
        await store.putStep(runId, stepRecord(i), lease);
      }
    }
  };
}

/** A new run and its lease, held for the whole bench. */
async function leasedRun(store: RunStore, id: string): Promise<Lease> {
  await store.createRun({ id, rootName: 'Bench' });
  return store.acquireLease(id, 'bench', 3_600_000);
}

function pgConnection(): pg.ClientConfig {
  const url = process.env.GROUNDSWELL_PG_URL;
  return url !== undefined && url !== ''
    ? { connectionString: url }
    : { host: '/var/run/postgresql', database: 'groundswell_test', user: process.env.PGUSER ?? userInfo().username };
}

/** Runs `sql` on a fresh connection; the reason when no server answers. */
async function pgRun(sql: string): Promise<string | undefined> {
  const client = new pg.Client({ ...pgConnection(), connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query(sql);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function runW9(): Promise<void> {
  section('W9  durable run store: one settled step (the step and its 2 events) as a durable run writes it');
  const rows: string[][] = [];
  const share = (ns: number): string => `${((ns / MODEL_CALL_NS) * 100).toFixed(2)}%`;

  const FLOOR_STEPS = 2_000;
  const floor = await measure(() => {
    for (let i = 0; i < FLOOR_STEPS; i += 1) holder.value = JSON.stringify(stepRecord(i)) + JSON.stringify(stepEvents(i));
  });
  rows.push(['FLOOR: JSON.stringify of the records (info)', fmtUs(floor.medianNs / FLOOR_STEPS), '-', '-', '-']);

  const dir = mkdtempSync(join(tmpdir(), 'groundswell-bench-runs-'));
  try {
    for (const [label, fsync, steps] of [
      ['JournalRunStore (fsync on checkpoints, the default)', 'checkpoints', 2_000],
      ['JournalRunStore (fsync every record) (info)', 'every-record', 100],
    ] as const) {
      const store = new JournalRunStore({ dir: join(dir, fsync), fsync });
      const m = await measure(settleRound(store, await leasedRun(store, 'bench'), steps), { runs: 7 });
      await store.close();
      const ns = m.medianNs / steps;
      const main = fsync === 'checkpoints';
      rows.push([
        label,
        fmtUs(ns),
        main ? `${recordRatio('W9', `journal store per step / ${fmtUs(TARGET_EMBEDDED_NS)}`, ns / TARGET_EMBEDDED_NS, 1)} ≤ ${fmtUs(TARGET_EMBEDDED_NS)}` : '-',
        share(ns),
        main ? recordRatio('W9', 'journal store per step / 10 ms model call', ns / MODEL_CALL_NS, TARGET_SHARE) : '-',
      ]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const unreachable = await pgRun('SELECT 1');
  if (unreachable !== undefined) {
    console.log(`  PostgreSQL skipped: no server reachable (${unreachable})`);
    // Counted, not left out: a missing service must not make its gates vanish.
    const reason = `no PostgreSQL: ${unreachable}`;
    recordNotRun('W9', PG_ABSOLUTE_GATE, 1, reason);
    recordNotRun('W9', PG_SHARE_GATE, TARGET_SHARE, reason);
    recordNotRun('W9', PG_INSERT_GATE, TARGET_PG_VS_INSERT, reason);
  } else {
    const schema = `gs_bench_${process.pid}`;
    const pool = new pg.Pool(pgConnection());
    const store = new PostgresRunStore({ pool, schema });
    try {
      await store.migrate();
      // The floor: the least a store that commits each step before going on must do, one row
      // written and committed synchronously (one statement, one WAL flush), on the same pool.
      await pool.query(`CREATE TABLE "${schema}".w9_floor (id bigserial PRIMARY KEY, key text NOT NULL, record json NOT NULL)`);
      const floorRecord = JSON.stringify(stepRecord(0));
      let floorKey = 0;
      const [bench, benchTwo, benchMore] = [await leasedRun(store, 'bench'), await leasedRun(store, 'bench-two'), await leasedRun(store, 'bench-more')] as const;
      const steps = 200;
      // Interleaved, round by round: a load spike on a shared machine hits every row, not one.
      const [trip, insert, one, two, more] = await measureInterleaved(
        [
          async () => {
            for (let n = 0; n < steps; n += 1) await pool.query({ name: 'w9_round_trip', text: 'SELECT 1', values: [] });
          },
          async () => {
            const text = `INSERT INTO "${schema}".w9_floor (key, record) SELECT $1, $2::json FROM (SELECT set_config('synchronous_commit', 'on', true)) AS sync`;
            for (let n = 0; n < steps; n += 1) await pool.query({ name: 'w9_insert', text, values: [`k${floorKey++}`, floorRecord] });
          },
          settleRound(store, bench, steps),
          settleRound(store, benchTwo, steps, true),
          settleRound(store, benchMore, steps, false, 8),
        ],
        { runs: 9 },
      );
      const perStepNs = (m: Measurement | undefined): number => (m?.medianNs ?? Number.NaN) / steps;
      const ns = perStepNs(one);
      rows.push(['FLOOR: one round trip, a named SELECT 1 on the same pool (info)', fmtUs(perStepNs(trip)), '-', share(perStepNs(trip)), '-']);
      const insertNs = perStepNs(insert);
      const vsInsert = `${recordRatio('W9', PG_INSERT_GATE, ns / insertNs, TARGET_PG_VS_INSERT)} ≤ ${TARGET_PG_VS_INSERT}× (${(ns / insertNs).toFixed(2)}×)`;
      rows.push(['FLOOR: one INSERT of the step record, synchronous commit, same pool', fmtUs(insertNs), '-', share(insertNs), '-']);
      rows.push(['PostgresRunStore vs that INSERT (each step committed before the next)', '', vsInsert, '', '']);
      const absolute = `${recordRatio('W9', PG_ABSOLUTE_GATE, ns / TARGET_PG_NS, 1)} ≤ ${fmtUs(TARGET_PG_NS)}`;
      rows.push(['PostgresRunStore (local socket or GROUNDSWELL_PG_URL)', fmtUs(ns), absolute, share(ns), recordRatio('W9', PG_SHARE_GATE, ns / MODEL_CALL_NS, TARGET_SHARE)]);
      rows.push(['PostgresRunStore, appendEvents + putStep (info)', fmtUs(perStepNs(two)), '-', share(perStepNs(two)), '-']);
      rows.push(['PostgresRunStore, a step with 10 events (info)', fmtUs(perStepNs(more)), '-', share(perStepNs(more)), '-']);
    } finally {
      await store.close();
      await pool.end();
      await pgRun(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  }

  console.log(table(['store', 'median/step', 'target per step', 'share of a 10 ms call', `≤ ${TARGET_SHARE * 100}%`], rows, ['left', 'right', 'left', 'right', 'left']));
  console.log(
    '  (sequential awaited steps in one run, each a ~300-byte step result and a batch of two events, one settleStep;\n' +
      '   "appendEvents + putStep": the two calls a store without settleStep gets; median of the measured rounds;\n' +
      '   PostgreSQL: one statement, one round trip per step, its rows measured interleaved round by round;\n' +
      '   the journal: one write(2) per file, fsync only where named)',
  );
}
