/**
 * W10: throughput of child workflows spread over worker processes by DBOS (groundswell/dbos):
 * a launcher fans out children, each with one agent call to a model that takes 50 ms, run by 1
 * and then by 2 worker processes on one PostgreSQL. Target: 2 workers ≥ 1.8× the throughput of 1
 * (recorded as time(2) / time(1) ≤ 0.556). Skipped with the reason printed when PostgreSQL is not
 * reachable (env GROUNDSWELL_PG_URL, else the local socket, database groundswell_test).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDbosDatabase } from '../tests/dbos/support/dbos-database.js';
import { bundleFixture, startFixture, type FixtureProcess } from '../tests/dbos/support/fixture-process.js';
import { startModelServer } from '../tests/dbos/support/model-server.js';
import { probePostgres } from '../tests/support/postgres-service.js';
import { fixed1, fixed2, recordRatio, section, table } from './harness.js';

const CHILDREN = 200;
const MODEL_MS = 50;
const WORKER_CONCURRENCY = 10;
const ROUNDS = Number(process.env.GS_W10_ROUNDS ?? 3);

/** One launcher run over `workers` worker processes: the root's wall time in ms. */
async function timedRun(file: string, workers: number): Promise<number> {
  const db = await createDbosDatabase('bench');
  const work = mkdtempSync(join(tmpdir(), 'gs-w10-'));
  const server = await startModelServer(MODEL_MS);
  const processes: FixtureProcess[] = [];
  const settings = (role: string, executorId: string) => ({
    role, executorId, url: db.url, modelUrl: server.url, work, children: CHILDREN, workerConcurrency: WORKER_CONCURRENCY,
  });
  try {
    for (let w = 1; w <= workers; w += 1) {
      const worker = startFixture(file, settings('worker', `worker-${w}`));
      processes.push(worker);
      await worker.report;
    }
    const launcher = startFixture(file, settings('launcher', 'launcher'));
    processes.push(launcher);
    const report = (await launcher.report) as { ms: number; results: number[] };
    if (report.results.length !== CHILDREN) throw new Error(`W10: ${report.results.length} of ${CHILDREN} children completed`);
    return report.ms;
  } finally {
    for (const started of processes) started.child.kill('SIGKILL');
    await Promise.all(processes.map((started) => started.exited));
    await server.close();
    await db.drop();
    rmSync(work, { recursive: true, force: true });
  }
}

export async function runW10(): Promise<void> {
  section(`W10  DBOS workers: ${CHILDREN} child workflows, one ${MODEL_MS} ms model call each, ${WORKER_CONCURRENCY} per worker`);
  const postgres = await probePostgres();
  if (!postgres.ok) {
    console.log(`  skipped: ${postgres.reason}`);
    return;
  }
  const fixture = join(import.meta.dirname, '..', 'tests', 'dbos', 'fixtures', 'dbos-app.ts');
  const bundle = await bundleFixture(fixture, 'w10-dbos-app');
  try {
    const one: number[] = [];
    const two: number[] = [];
    // Interleaved rounds: the machine is shared, so neither setting gets all the quiet moments.
    for (let round = 0; round < ROUNDS; round += 1) {
      one.push(await timedRun(bundle.file, 1));
      two.push(await timedRun(bundle.file, 2));
    }
    const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
    const t1 = median(one);
    const t2 = median(two);
    const floor = (CHILDREN / WORKER_CONCURRENCY) * MODEL_MS;
    console.log(
      table(
        ['workers', 'root time (median ms)', 'children / s', 'runs (ms)', 'model-time floor (ms)'],
        [
          ['1', String(t1), fixed1((CHILDREN * 1000) / t1), one.join(' '), String(floor)],
          ['2', String(t2), fixed1((CHILDREN * 1000) / t2), two.join(' '), String(floor / 2)],
        ],
        ['right', 'right', 'right', 'left', 'right'],
      ),
    );
    console.log(`  speed-up 2 workers vs 1: ${fixed2(t1 / t2)}× (target ≥ 1.80×)`);
    console.log(`  ${recordRatio('W10', 'time with 2 workers / time with 1', t2 / t1, 1 / 1.8)}`);
  } finally {
    bundle.remove();
  }
}
