/**
 * W10: throughput of child workflows spread over worker processes by DBOS (groundswell/dbos):
 * a launcher fans out children, each with one agent call to a model (an HTTP server in this
 * process) that takes 50 ms, run by 1 and then by 2 worker processes on one PostgreSQL.
 * Target: 2 workers ≥ 1.8× the throughput of 1, recorded as time(2) / time(1) ≤ 0.556, with one
 * child at a time per worker (the model's latency is the work a worker adds). With 10 at a time
 * per worker (info) the shared parts (PostgreSQL, the launcher, the machine's CPU) set the pace.
 * Skipped with the reason printed when PostgreSQL is not reachable (env GROUNDSWELL_PG_URL, else
 * the local socket, database groundswell_test).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDbosDatabase } from '../tests/durable/dbos/support/dbos-database.js';
import { bundleFixture } from '../tests/support/bundle-fixture.js';
import { startFixture, type FixtureProcess } from '../tests/durable/dbos/support/fixture-process.js';
import { startModelServer } from '../tests/durable/dbos/support/model-server.js';
import { probePostgres } from '../tests/support/postgres-service.js';
import { fixed1, fixed2, recordNotRun, recordRatio, section, table } from './harness.js';

const MODEL_MS = 50;
const ROUNDS = Number(process.env.GS_W10_ROUNDS ?? 3);

interface Setting {
  readonly children: number;
  readonly perWorker: number;
  readonly rounds: number;
  readonly target: boolean;
}

const SETTINGS: readonly Setting[] = [
  { children: 100, perWorker: 1, rounds: ROUNDS, target: true },
  { children: 200, perWorker: 10, rounds: 1, target: false },
];

/** One launcher run over `workers` worker processes: the root's wall time in ms. */
async function timedRun(file: string, setting: Setting, workers: number): Promise<number> {
  const db = await createDbosDatabase('bench');
  const work = mkdtempSync(join(tmpdir(), 'gs-w10-'));
  const server = await startModelServer(MODEL_MS);
  const processes: FixtureProcess[] = [];
  const settings = (role: string, executorId: string) => ({
    role, executorId, url: db.url, modelUrl: server.url, work, children: setting.children, workerConcurrency: setting.perWorker,
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
    if (report.results.length !== setting.children) throw new Error(`W10: ${report.results.length} of ${setting.children} children completed`);
    return report.ms;
  } finally {
    for (const started of processes) started.child.kill('SIGKILL');
    await Promise.all(processes.map((started) => started.exited));
    await server.close();
    await db.drop();
    rmSync(work, { recursive: true, force: true });
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const GATE = 'time with 2 workers / time with 1';

export async function runW10(): Promise<void> {
  section(`W10  DBOS workers: child workflows with one ${MODEL_MS} ms model call each, 1 worker process vs 2`);
  const postgres = await probePostgres();
  if (!postgres.ok) {
    console.log(`  skipped: ${postgres.reason}`);
    recordNotRun('W10', GATE, 1 / 1.8, `no PostgreSQL: ${postgres.reason}`);
    return;
  }
  const fixture = join(import.meta.dirname, '..', 'tests', 'durable', 'dbos', 'fixtures', 'dbos-app.ts');
  const bundle = await bundleFixture(fixture, 'w10-dbos-app');
  try {
    const rows: string[][] = [];
    const notes: string[] = [];
    for (const setting of SETTINGS) {
      const one: number[] = [];
      const two: number[] = [];
      // Interleaved rounds: the machine is shared, so neither count gets all the quiet moments.
      for (let round = 0; round < setting.rounds; round += 1) {
        one.push(await timedRun(bundle.file, setting, 1));
        two.push(await timedRun(bundle.file, setting, 2));
      }
      const t1 = median(one);
      const t2 = median(two);
      for (const [workers, t, runs] of [[1, t1, one], [2, t2, two]] as const) {
        rows.push([String(setting.children), String(setting.perWorker), String(workers), String(t), fixed1((setting.children * 1000) / t), runs.join(' ')]);
      }
      const speedUp = `${setting.perWorker} per worker: 2 workers vs 1 = ${fixed2(t1 / t2)}×`;
      if (setting.target) notes.push(`${speedUp} (target ≥ 1.80×) ${recordRatio('W10', GATE, t2 / t1, 1 / 1.8)}`);
      else notes.push(`${speedUp} (info)`);
    }
    console.log(
      table(['children', 'per worker', 'workers', 'root time (median ms)', 'children / s', 'runs (ms)'], rows, ['right', 'right', 'right', 'right', 'right', 'left']),
    );
    for (const note of notes) console.log(`  ${note}`);
  } finally {
    bundle.remove();
  }
}
