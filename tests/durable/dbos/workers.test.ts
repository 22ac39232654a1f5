import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probePostgres } from '../../support/postgres-service.js';
import { createDbosDatabase } from './support/dbos-database.js';
import { bundleFixture } from '../../support/bundle-fixture.js';
import { startFixture, type FixtureProcess } from './support/fixture-process.js';
import { startModelServer } from './support/model-server.js';

const postgres = await probePostgres();
const FIXTURE = join(import.meta.dirname, 'fixtures', 'dbos-app.ts');
const CHILDREN = 200;
const WORKER_CONCURRENCY = 10;

let bundle: { file: string; remove: () => void };
beforeAll(async () => {
  if (postgres.ok) bundle = await bundleFixture(FIXTURE, 'dbos-app');
});
afterAll(() => bundle?.remove());

function effects(work: string): string[] {
  try {
    return readFileSync(join(work, 'effects.log'), 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

interface LauncherReport {
  results: number[];
  by: string[];
  childSteps: number;
  callEnds: number;
  stepName: string;
  treeChildren: number;
  grafted: number;
  agentNodes: number;
  exported: { events: number; distinctIds: number; dangling: number; outOfOrder: number };
  ms: number;
}

describe.skipIf(!postgres.ok)('groundswell/dbos on PostgreSQL', () => {
  it('a launcher and two workers: 200 children, one worker killed with SIGKILL mid-run and recovered by DBOS', async () => {
    const began = Date.now();
    const db = await createDbosDatabase('workers');
    const work = mkdtempSync(join(tmpdir(), 'gs-dbos-'));
    const processes: FixtureProcess[] = [];
    let killedAt: { inFlight: number } | undefined;
    let worker2: FixtureProcess | undefined;
    const server = await startModelServer(100, (worker, count) => {
      // Mid-run: worker-2 has made 25 calls, and others are still waiting for answers.
      if (worker === 'worker-2' && count === 25 && killedAt === undefined) {
        killedAt = { inFlight: server.requests.inFlight.get('worker-2') ?? 0 };
        worker2?.child.kill('SIGKILL');
      }
    });
    const settings = (role: string, executorId: string) => ({
      role,
      executorId,
      url: db.url,
      modelUrl: server.url,
      work,
      children: CHILDREN,
      workerConcurrency: WORKER_CONCURRENCY,
    });
    const start = (role: string, executorId: string): FixtureProcess => {
      const started = startFixture(bundle.file, settings(role, executorId));
      processes.push(started);
      return started;
    };
    try {
      // One at a time until DBOS has migrated its database; then the launcher.
      await start('worker', 'worker-1').report;
      worker2 = start('worker', 'worker-2');
      await worker2.report;
      const launcher = start('launcher', 'launcher');
      const killed = await worker2.exited;
      expect(killed.signal).toBe('SIGKILL');
      // Without DBOS Conductor, a process with the dead one's executor id recovers its workflows at launch.
      await start('worker', 'worker-2').report;
      const report = (await launcher.report) as LauncherReport;

      // Every child completed, once: each index once in the result, each child workflow SUCCESS once.
      expect([...report.results].sort((a, b) => a - b)).toEqual([...Array(CHILDREN).keys()]);
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ status: string; count: string }>(
          `select status, count(*) from dbos.workflow_status where workflow_uuid like 'root-run/%' group by status`,
        );
        expect(rows.map((row) => [row.status, Number(row.count)])).toEqual([['SUCCESS', CHILDREN]]);
      } finally {
        await client.end();
      }
      expect(new Set(report.by)).toEqual(new Set(['worker-1', 'worker-2']));
      // A child's work ran again only where the killed worker had it in flight.
      const done = effects(work);
      for (let i = 0; i < CHILDREN; i += 1) expect(done.filter((line) => line === `child ${i}`).length).toBeGreaterThanOrEqual(1);
      expect(done.length).toBeLessThanOrEqual(CHILDREN + WORKER_CONCURRENCY);
      // Model requests: one per child, plus at most the calls in flight on the killed worker.
      expect(killedAt).toBeDefined();
      expect(server.requests.total).toBeGreaterThanOrEqual(CHILDREN);
      expect(server.requests.total).toBeLessThanOrEqual(CHILDREN + WORKER_CONCURRENCY);
      console.log(
        `dbos workers: ${server.requests.total} model requests for ${CHILDREN} children ` +
          `(${killedAt?.inFlight} unanswered on worker-2 when killed); ${done.length} child completions; root ran ${report.ms} ms; test ${Date.now() - began} ms`,
      );
      // The launcher's root observers saw every child's events, and its tree holds every child under the step.
      expect(report.childSteps).toBe(CHILDREN);
      expect(report.callEnds).toBeGreaterThanOrEqual(CHILDREN);
      expect(report.stepName).toBe('fan out');
      expect(report.treeChildren).toBe(CHILDREN);
      expect(report.grafted).toBe(CHILDREN);
      // A child the killed worker had finished the step of replays it on recovery: no agent node then.
      expect(report.agentNodes).toBeGreaterThanOrEqual(CHILDREN - WORKER_CONCURRENCY);
    } finally {
      for (const started of processes) started.child.kill('SIGKILL');
      await Promise.all(processes.map((started) => started.exited));
      await server.close();
      await db.drop();
      rmSync(work, { recursive: true, force: true });
    }
  }, 180_000);

  it('one tree across processes: a 120-child export has distinct event ids in order, each on a node of the tree', async () => {
    const children = 120;
    const db = await createDbosDatabase('export');
    const work = mkdtempSync(join(tmpdir(), 'gs-dbos-'));
    const server = await startModelServer(20);
    const processes: FixtureProcess[] = [];
    const start = (role: string, executorId: string): FixtureProcess => {
      const started = startFixture(bundle.file, { role, executorId, url: db.url, modelUrl: server.url, work, children, workerConcurrency: WORKER_CONCURRENCY });
      processes.push(started);
      return started;
    };
    try {
      await start('worker', 'worker-1').report;
      await start('worker', 'worker-2').report;
      const report = (await start('launcher', 'launcher').report) as LauncherReport;
      const { exported } = report;
      console.log(`dbos export of ${children} children: ${exported.events} events, ${exported.distinctIds} distinct ids, ${exported.outOfOrder} out of order, ${exported.dangling} on no node`);
      expect(report.grafted).toBe(children);
      expect(new Set(report.by)).toEqual(new Set(['worker-1', 'worker-2']));
      // Each child: its step's start and end and its agent call's events, at least.
      expect(exported.events).toBeGreaterThan(children * 4);
      expect(exported.distinctIds).toBe(exported.events);
      expect(exported.outOfOrder).toBe(0);
      expect(exported.dangling).toBe(0);
    } finally {
      for (const started of processes) started.child.kill('SIGKILL');
      await Promise.all(processes.map((started) => started.exited));
      await server.close();
      await db.drop();
      rmSync(work, { recursive: true, force: true });
    }
  }, 90_000);

  it('a launcher killed mid-run and started again with the run id gets the tree and its events from the start', async () => {
    const children = 60;
    const db = await createDbosDatabase('relaunch');
    const work = mkdtempSync(join(tmpdir(), 'gs-dbos-'));
    const processes: FixtureProcess[] = [];
    let first: FixtureProcess | undefined;
    // The first launcher dies once a third of the children have asked the model.
    const server = await startModelServer(50, () => {
      if (server.requests.total === children / 3) first?.child.kill('SIGKILL');
    });
    const start = (role: string, executorId: string): FixtureProcess => {
      const started = startFixture(bundle.file, { role, executorId, url: db.url, modelUrl: server.url, work, children, workerConcurrency: 5 });
      processes.push(started);
      return started;
    };
    try {
      await start('worker', 'worker-1').report;
      await start('worker', 'worker-2').report;
      first = start('launcher', 'launcher');
      expect((await first.exited).signal).toBe('SIGKILL');
      // DBOS recovers the root where a process with the dead launcher's executor id starts: here a worker.
      await start('worker', 'launcher').report;
      const report = (await start('launcher', 'launcher-2').report) as LauncherReport;
      expect([...report.results].sort((a, b) => a - b)).toEqual([...Array(children).keys()]);
      // The new launcher's observers saw every child's step, those before it started too.
      expect(report.childSteps).toBe(children);
      expect(report.stepName).toBe('fan out');
      expect(report.grafted).toBe(children);
      expect(report.exported.distinctIds).toBe(report.exported.events);
      expect(report.exported.dangling).toBe(0);
    } finally {
      for (const started of processes) started.child.kill('SIGKILL');
      await Promise.all(processes.map((started) => started.exited));
      await server.close();
      await db.drop();
      rmSync(work, { recursive: true, force: true });
    }
  }, 120_000);

  it('cancelling a root cancels the children it queued', async () => {
    const children = 120;
    const db = await createDbosDatabase('cancel');
    const work = mkdtempSync(join(tmpdir(), 'gs-dbos-'));
    const server = await startModelServer(100);
    const processes: FixtureProcess[] = [];
    const start = (role: string, executorId: string): FixtureProcess => {
      const started = startFixture(bundle.file, { role, executorId, url: db.url, modelUrl: server.url, work, children, workerConcurrency: 2, cancelAfter: 6 });
      processes.push(started);
      return started;
    };
    try {
      await start('worker', 'worker-1').report;
      await start('worker', 'worker-2').report;
      const report = (await start('cancel', 'launcher').report) as { outcome: string; endsAtCancel: number; states: Record<string, number>; root: string };
      expect(report.root).toBe('CANCELLED');
      expect(report.outcome).not.toBe('completed');
      // No child is left to run: the queued ones are cancelled, not taken by the workers later.
      expect(report.states.ENQUEUED ?? 0).toBe(0);
      expect(report.states.PENDING ?? 0).toBe(0);
      expect(report.states.CANCELLED ?? 0).toBeGreaterThan(children / 2);
    } finally {
      for (const started of processes) started.child.kill('SIGKILL');
      await Promise.all(processes.map((started) => started.exited));
      await server.close();
      await db.drop();
      rmSync(work, { recursive: true, force: true });
    }
  }, 90_000);

  it('a run recovered by DBOS does not repeat a completed step or agent call', async () => {
    const db = await createDbosDatabase('recover');
    const work = mkdtempSync(join(tmpdir(), 'gs-dbos-'));
    const server = await startModelServer(10);
    try {
      const run = startFixture(bundle.file, { role: 'recover', executorId: 'solo', url: db.url, modelUrl: server.url, work, children: 0, workerConcurrency: 1 });
      const report = (await run.report) as { result: number; recoveredEvents: string[] };
      expect((await run.exited).code).toBe(0);
      expect(report.result).toBe(1 + 7 + 100);
      // Step a and the agent call ran once; step b, in flight when DBOS stopped, ran again.
      expect(effects(work)).toEqual(['a', 'b', 'b']);
      expect(server.requests.total).toBe(1);
      expect(report.recoveredEvents).toEqual(['start a', 'replayed a', 'call replayed=true', 'start b']);
    } finally {
      await server.close();
      await db.drop();
      rmSync(work, { recursive: true, force: true });
    }
  }, 60_000);
});
