import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probePostgres } from '../../support/postgres-service.js';
import { bundleFixture } from '../../support/bundle-fixture.js';
import { withDbosScenario, type DbosScenarioOptions } from './support/dbos-scenario.js';
import type { FixtureProcess } from './support/fixture-process.js';
import { watchProgress } from './support/progress.js';

const postgres = await probePostgres();
const FIXTURE = join(import.meta.dirname, 'fixtures', 'dbos-app.ts');
const CHILDREN = 200;
const WORKER_CONCURRENCY = 10;
/*
 * No vitest timeout (0) on these tests or the bundling hook: every wait in them goes through
 * `until` (support/progress.ts), which fails once nothing observable has moved for STALL_MS and
 * says what it waited for. A loaded machine makes them slower; a fixed budget would make it red.
 */
const NO_TIMEOUT = 0;

let bundle: { file: string; remove: () => void };
beforeAll(async () => {
  if (postgres.ok) bundle = await watchProgress().until('the fixture bundle', bundleFixture(FIXTURE, 'dbos-app'));
}, NO_TIMEOUT);
afterAll(() => bundle?.remove());

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
    let killedAt: { inFlight: number } | undefined;
    let worker2: FixtureProcess | undefined;
    const options: DbosScenarioOptions = {
      bundle: bundle.file,
      label: 'workers',
      children: CHILDREN,
      workerConcurrency: WORKER_CONCURRENCY,
      modelDelayMs: 100,
      onModelRequest: (worker, count, requests) => {
        // Mid-run: worker-2 has made 25 calls, and others are still waiting for answers.
        if (worker === 'worker-2' && count === 25 && killedAt === undefined) {
          killedAt = { inFlight: requests.inFlight.get('worker-2') ?? 0 };
          worker2?.child.kill('SIGKILL');
        }
      },
    };
    await withDbosScenario(options, async (s) => {
      // One at a time until DBOS has migrated its database; then the launcher.
      await s.until('worker-1 to be ready', s.start('worker', 'worker-1').report);
      worker2 = s.start('worker', 'worker-2');
      await s.until('worker-2 to be ready', worker2.report);
      const launcher = s.start('launcher', 'launcher');
      const killed = await s.until('worker-2 to be killed at its 25th model call', worker2.exited);
      expect(killed.signal).toBe('SIGKILL');
      // Without DBOS Conductor, a process with the dead one's executor id recovers its workflows at launch.
      await s.until('the restarted worker-2 to be ready', s.start('worker', 'worker-2').report);
      const report = (await s.until("the launcher's report", launcher.report)) as LauncherReport;

      // Every child completed, once: each index once in the result, each child workflow SUCCESS once.
      expect([...report.results].sort((a, b) => a - b)).toEqual([...Array(CHILDREN).keys()]);
      expect(await s.workflowStates('root-run/')).toEqual([['SUCCESS', CHILDREN]]);
      expect(new Set(report.by)).toEqual(new Set(['worker-1', 'worker-2']));
      // A child's work ran again only where the killed worker had it in flight.
      const done = s.effects();
      for (let i = 0; i < CHILDREN; i += 1) expect(done.filter((line) => line === `child ${i}`).length).toBeGreaterThanOrEqual(1);
      expect(done.length).toBeLessThanOrEqual(CHILDREN + WORKER_CONCURRENCY);
      // Model requests: one per child, plus at most the calls in flight on the killed worker.
      expect(killedAt).toBeDefined();
      expect(s.server.requests.total).toBeGreaterThanOrEqual(CHILDREN);
      expect(s.server.requests.total).toBeLessThanOrEqual(CHILDREN + WORKER_CONCURRENCY);
      console.log(
        `dbos workers: ${s.server.requests.total} model requests for ${CHILDREN} children ` +
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
    });
  }, NO_TIMEOUT);

  it('one tree across processes: a 120-child export has distinct event ids in order, each on a node of the tree', async () => {
    const children = 120;
    await withDbosScenario({ bundle: bundle.file, label: 'export', children, workerConcurrency: WORKER_CONCURRENCY, modelDelayMs: 20 }, async (s) => {
      await s.until('worker-1 to be ready', s.start('worker', 'worker-1').report);
      await s.until('worker-2 to be ready', s.start('worker', 'worker-2').report);
      const report = (await s.until("the launcher's report", s.start('launcher', 'launcher').report)) as LauncherReport;
      const { exported } = report;
      console.log(`dbos export of ${children} children: ${exported.events} events, ${exported.distinctIds} distinct ids, ${exported.outOfOrder} out of order, ${exported.dangling} on no node`);
      expect(report.grafted).toBe(children);
      expect(new Set(report.by)).toEqual(new Set(['worker-1', 'worker-2']));
      // Each child: its step's start and end and its agent call's events, at least.
      expect(exported.events).toBeGreaterThan(children * 4);
      expect(exported.distinctIds).toBe(exported.events);
      expect(exported.outOfOrder).toBe(0);
      expect(exported.dangling).toBe(0);
    });
  }, NO_TIMEOUT);

  it('a launcher killed mid-run and started again with the run id gets the tree and its events from the start', async () => {
    const children = 60;
    let first: FixtureProcess | undefined;
    const options: DbosScenarioOptions = {
      bundle: bundle.file,
      label: 'relaunch',
      children,
      workerConcurrency: 5,
      modelDelayMs: 50,
      // The first launcher dies once a third of the children have asked the model.
      onModelRequest: (_worker, _count, requests) => {
        if (requests.total === children / 3) first?.child.kill('SIGKILL');
      },
    };
    await withDbosScenario(options, async (s) => {
      await s.until('worker-1 to be ready', s.start('worker', 'worker-1').report);
      await s.until('worker-2 to be ready', s.start('worker', 'worker-2').report);
      first = s.start('launcher', 'launcher');
      expect((await s.until(`the first launcher to be killed at the ${children / 3}th model call`, first.exited)).signal).toBe('SIGKILL');
      // DBOS recovers the root where a process with the dead launcher's executor id starts: here a worker.
      await s.until("a worker with the dead launcher's executor id to be ready", s.start('worker', 'launcher').report);
      const report = (await s.until("the second launcher's report", s.start('launcher', 'launcher-2').report)) as LauncherReport;
      expect([...report.results].sort((a, b) => a - b)).toEqual([...Array(children).keys()]);
      // The new launcher's observers saw every child's step, those before it started too.
      expect(report.childSteps).toBe(children);
      expect(report.stepName).toBe('fan out');
      expect(report.grafted).toBe(children);
      expect(report.exported.distinctIds).toBe(report.exported.events);
      expect(report.exported.dangling).toBe(0);
    });
  }, NO_TIMEOUT);

  it('cancelling a root cancels the children it queued', async () => {
    const children = 120;
    const options = { bundle: bundle.file, label: 'cancel', children, workerConcurrency: 2, modelDelayMs: 100, cancelAfter: 6 };
    await withDbosScenario(options, async (s) => {
      await s.until('worker-1 to be ready', s.start('worker', 'worker-1').report);
      await s.until('worker-2 to be ready', s.start('worker', 'worker-2').report);
      const report = (await s.until("the cancelling launcher's report", s.start('cancel', 'launcher').report)) as {
        outcome: string;
        endsAtCancel: number;
        states: Record<string, number>;
        root: string;
      };
      expect(report.root).toBe('CANCELLED');
      expect(report.outcome).not.toBe('completed');
      // No child is left to run: the queued ones are cancelled, not taken by the workers later.
      expect(report.states.ENQUEUED ?? 0).toBe(0);
      expect(report.states.PENDING ?? 0).toBe(0);
      expect(report.states.CANCELLED ?? 0).toBeGreaterThan(children / 2);
    });
  }, NO_TIMEOUT);

  it('a run recovered by DBOS does not repeat a completed step or agent call', async () => {
    await withDbosScenario({ bundle: bundle.file, label: 'recover', children: 0, workerConcurrency: 1, modelDelayMs: 10 }, async (s) => {
      const run = s.start('recover', 'solo');
      const report = (await s.until("the recovered run's report", run.report)) as { result: number; recoveredEvents: string[] };
      expect((await s.until('the recovering process to exit', run.exited)).code).toBe(0);
      expect(report.result).toBe(1 + 7 + 100);
      // Step a and the agent call ran once; step b, in flight when DBOS stopped, ran again.
      expect(s.effects()).toEqual(['a', 'b', 'b']);
      expect(s.server.requests.total).toBe(1);
      expect(report.recoveredEvents).toEqual(['start a', 'replayed a', 'call replayed=true', 'start b']);
    });
  }, NO_TIMEOUT);
});
