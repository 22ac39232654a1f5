/**
 * W9: the cost of durability per settled step: the step record and one batch of its two events
 * (stepStart, stepEnd), written as a durable run writes them: one `settleStep` where the store has
 * it (else `appendEvents` then `putStep`), awaited in sequence. On the
 * embedded JournalRunStore (default fsync policy: no fsync per step; and `every-record`, info)
 * and on PostgreSQL (skipped with the reason printed when no server is reachable: env
 * GROUNDSWELL_PG_URL, else the local socket, database groundswell_test).
 * Targets: embedded ≤ 50 µs per step (absolute, info on a noisy machine), and each store's cost
 * ≤ 5% of a 10 ms model call (recorded as a ratio). Floor (info): JSON.stringify of the same
 * records, what any store must do at least.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { JournalRunStore, type RunStore, type StepRecord } from 'groundswell/durable';
import { PostgresRunStore } from 'groundswell/postgres';
import { fmtUs, holder, measure, recordRatio, section, table, verdict, type Measurement } from './harness.js';

const MODEL_CALL_NS = 10_000_000;
const TARGET_SHARE = 0.05;
const TARGET_EMBEDDED_NS = 50_000;

function stepRecord(i: number): StepRecord {
  return {
    key: `TriageWorkflow/classify#${i}`,
    status: 'completed',
    value: { ticket: `T-${i}`, category: 'billing', priority: 2, tags: ['refund', 'card'], summary: 'Customer was charged twice for one order.' },
    fingerprint: '9f2c1e5a7b3d4c6e',
    at: 1_700_000_000_000 + i,
  };
}

function stepEvents(i: number): unknown[] {
  const base = { workflowId: 'wf-1', nodeId: `node-${i}`, name: 'classify' };
  return [
    { type: 'stepStart', ...base, timestamp: 1_700_000_000_000 + i },
    { type: 'stepEnd', ...base, timestamp: 1_700_000_000_001 + i, durationMs: 1 },
  ];
}

/** `twoCalls`: the way a store without `settleStep` is written (info: what one statement saves). */
async function perStep(store: RunStore, runId: string, steps: number, runs = 7, twoCalls = false): Promise<Measurement> {
  let next = 0;
  const settle = twoCalls ? undefined : store.settleStep?.bind(store);
  return measure(
    async () => {
      for (let n = 0; n < steps; n += 1) {
        const i = next++;
        if (settle !== undefined) await settle(runId, stepRecord(i), stepEvents(i));
        else {
          await store.appendEvents(runId, stepEvents(i));
          await store.putStep(runId, stepRecord(i));
        }
      }
    },
    { runs },
  );
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
      await store.createRun({ id: 'bench', rootName: 'Bench' });
      const m = await perStep(store, 'bench', steps);
      await store.close();
      const ns = m.medianNs / steps;
      const main = fsync === 'checkpoints';
      rows.push([
        label,
        fmtUs(ns),
        main ? `${verdict(ns, TARGET_EMBEDDED_NS)} ≤ ${fmtUs(TARGET_EMBEDDED_NS)}` : '-',
        share(ns),
        main ? recordRatio('W9', 'journal store per step / 10 ms model call', ns / MODEL_CALL_NS, TARGET_SHARE) : '-',
      ]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const unreachable = await pgRun('SELECT 1');
  if (unreachable !== undefined) console.log(`  PostgreSQL skipped: no server reachable (${unreachable})`);
  else {
    const schema = `gs_bench_${process.pid}`;
    const store = new PostgresRunStore({ connection: pgConnection(), schema });
    try {
      await store.migrate();
      await store.createRun({ id: 'bench', rootName: 'Bench' });
      const steps = 200;
      const m = await perStep(store, 'bench', steps, 5);
      const ns = m.medianNs / steps;
      rows.push(['PostgresRunStore (local socket or GROUNDSWELL_PG_URL)', fmtUs(ns), '-', share(ns), recordRatio('W9', 'postgres store per step / 10 ms model call', ns / MODEL_CALL_NS, TARGET_SHARE)]);
      const two = await perStep(store, 'bench', steps, 5, true);
      const twoNs = two.medianNs / steps;
      rows.push(['PostgresRunStore, appendEvents + putStep (info)', fmtUs(twoNs), '-', share(twoNs), '-']);
    } finally {
      await store.close();
      await pgRun(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  }

  console.log(table(['store', 'median/step', 'embedded target', 'share of a 10 ms call', `≤ ${TARGET_SHARE * 100}%`], rows, ['left', 'right', 'left', 'right', 'left']));
  console.log(
    '  (sequential awaited steps in one run, each a ~300-byte step result and a batch of two events, one settleStep;\n' +
      '   "appendEvents + putStep": the two calls a store without settleStep gets; median of the measured rounds;\n' +
      '   PostgreSQL: one statement, one round trip per step; the journal: one write(2) per file, fsync only where named)',
  );
}
