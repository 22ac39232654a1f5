import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probePostgres } from '../../support/postgres-service.js';
import { bundleFixture } from '../../support/bundle-fixture.js';
import { withDbosScenario } from './support/dbos-scenario.js';
import { watchProgress } from './support/progress.js';

const postgres = await probePostgres();
const FIXTURE = join(import.meta.dirname, 'fixtures', 'dbos-app.ts');
// Every wait goes through `until` (support/progress.ts), which fails on a stall: no vitest timeout.
const NO_TIMEOUT = 0;

let bundle: { file: string; remove: () => void };
beforeAll(async () => {
  if (postgres.ok) bundle = await watchProgress().until('the fixture bundle', bundleFixture(FIXTURE, 'dbos-budgets'));
}, NO_TIMEOUT);
afterAll(() => bundle?.remove());

type Asked = 'answered' | { refused: Array<Record<string, unknown>> };

interface BudgetReport {
  spent: { modelRequests: number; tokens: number };
  treeTokens: number;
  treeCalls: number;
  nodeIds: Record<string, string>;
}

/** What a Budgeted run returns: its own two requests, its root budget's count at the end, one request's tokens. */
interface BudgetedValue {
  first: Asked;
  second: Asked;
  spent: { modelRequests: number; tokens: number };
  perRequest: number;
  replayed: string[];
}

interface BudgetedReport extends BudgetReport {
  value: BudgetedValue;
}

interface BoundedReport extends BudgetReport {
  value: { fanOut: { done: number } | { failed: Array<Record<string, unknown>> }; after: Asked };
  events: Array<{ type: string; budgetNodeId: string }>;
}

/**
 * The run's own second request is refused because what its children spent on the worker was
 * counted, once: its root budget holds every request of the run and their tokens.
 */
function expectCounted(value: BudgetedValue, children: number): void {
  const limit = children * 2 + 1;
  expect(value.first).toBe('answered');
  expect(value.second).toMatchObject({ refused: [{ name: 'BudgetExceededError', dimension: 'modelRequests', limit, spent: limit }] });
  expect(value.spent).toEqual({ modelRequests: limit, tokens: limit * value.perRequest });
  expect(value.perRequest).toBeGreaterThan(0);
}

describe.skipIf(!postgres.ok)('groundswell/dbos: budgets above children on other processes', () => {
  it("a launcher's budget counts what its children spent on a worker", async () => {
    const children = 3;
    await withDbosScenario({ bundle: bundle.file, label: 'budget', children, workerConcurrency: 5, modelDelayMs: 10 }, async (s) => {
      await s.until('the worker to be ready', s.start('worker', 'worker-1').report);
      const report = (await s.until("the launcher's report", s.start('budget', 'launcher').report)) as BudgetedReport;
      expectCounted(report.value, children);
      // The ledger agrees with the launcher's tree, where the children's calls are grafted.
      expect(report.treeCalls).toBe(children * 2 + 1);
      expect(report.spent.tokens).toBe(report.treeTokens);
      // Two per child on the worker and the launcher's first; its second was never sent.
      expect(s.server.requests.byWorker.get('worker-1')).toBe(children * 2);
      expect(s.server.requests.byWorker.get('launcher')).toBe(1);
    });
  }, NO_TIMEOUT);

  it('a launcher recovered by DBOS counts its children once: a fan-out replayed from the record, and one run again', async () => {
    const children = 2;
    await withDbosScenario({ bundle: bundle.file, label: 'budget_recover', children, workerConcurrency: 5, modelDelayMs: 10 }, async (s) => {
      await s.until('the worker to be ready', s.start('worker', 'worker-1').report);
      const launcher = s.start('budget-recover', 'launcher');
      const report = (await s.until('the recovered runs\' results', launcher.report)) as Record<'recorded' | 'in flight', BudgetedValue>;
      expect((await s.until('the launcher to exit', launcher.exited)).code).toBe(0);
      // Counted once each, wherever DBOS recovered the run: not zero times (the replayed step runs
      // no child), not twice (the step run again follows the same children).
      expectCounted(report.recorded, children);
      expectCounted(report['in flight'], children);
      expect(report.recorded.replayed).toEqual(['fan out']);
      expect(report['in flight'].replayed).toEqual([]);
      // The children ran once (two runs, two requests each); each recovered run sent one request of its own.
      expect(s.server.requests.byWorker.get('worker-1') ?? 0).toBeGreaterThanOrEqual(2 * children * 2);
      expect(s.server.requests.total).toBe(2 * (children * 2 + 1));
    });
  }, NO_TIMEOUT);

  it("a child gets what its launcher's budgets have left: refused on its worker, the refusal seen and counted by the launcher", async () => {
    await withDbosScenario({ bundle: bundle.file, label: 'headroom', children: 0, workerConcurrency: 5, modelDelayMs: 10 }, async (s) => {
      await s.until('the worker to be ready', s.start('worker', 'worker-1').report);
      const report = (await s.until("the launcher's report", s.start('headroom', 'launcher').report)) as Record<'headroom' | 'headroom-own', BoundedReport>;
      for (const [run, owner] of [
        ['headroom', 'the headroom from the launcher budget'],
        ['headroom-own', 'the workflow "CappedAnswers" budget'],
      ] as const) {
        const { value, spent, events, nodeIds } = report[run];
        // Five requests of work, three left: the fourth is refused on the worker and the child fails.
        expect(value.fanOut).toHaveProperty('failed');
        const chain = 'failed' in value.fanOut ? value.fanOut.failed : [];
        const refusal = chain.find((error) => error.name === 'BudgetExceededError');
        expect(refusal, JSON.stringify(chain)).toMatchObject({ dimension: 'modelRequests', limit: 3, spent: 3 });
        expect(String(refusal?.message)).toContain(owner);
        // The failed child's three requests count here: nothing is left for the launcher's own.
        expect(spent.modelRequests).toBe(3);
        expect(value.after).toMatchObject({ refused: [{ name: 'BudgetExceededError', limit: 3, spent: 3 }] });
        // The worker's budgetExceeded reached the launcher's observers, on the child's node in its tree.
        const relayed = events.filter((event) => event.type === 'budgetExceeded' && nodeIds[event.budgetNodeId] !== 'Bounded');
        expect(relayed.map((event) => nodeIds[event.budgetNodeId])).toEqual([run === 'headroom' ? 'Answers' : 'CappedAnswers']);
      }
      expect(s.server.requests.byWorker.get('worker-1')).toBe(6);
      expect(s.server.requests.byWorker.get('launcher')).toBeUndefined();
    });
  }, NO_TIMEOUT);

  it('children on workers reserve on one account: a heavy child is not refused while its siblings leave room, and together they never pass the cap', async () => {
    await withDbosScenario({ bundle: bundle.file, label: 'shared', children: 0, workerConcurrency: 5, modelDelayMs: 10 }, async (s) => {
      await s.until('the worker to be ready', s.start('worker', 'worker-1').report);
      const report = (await s.until("the launcher's report", s.start('shared', 'launcher').report)) as Record<'fits' | 'over', BudgetReport & { value: { done?: number[]; failed?: Array<Record<string, unknown>> } }>;
      // 4 + 1 + 1 requests under a cap of 6: every child runs all of its work.
      expect(report.fits.value, JSON.stringify(report.fits.value)).toEqual({ done: [4, 1, 1] });
      expect(report.fits.spent.modelRequests).toBe(6);
      // 5 + 5 under 6: refused once the account is spent, never past it.
      const chain = report.over.value.failed ?? [];
      expect(chain.find((error) => error.name === 'BudgetExceededError'), JSON.stringify(report.over.value)).toMatchObject({ dimension: 'modelRequests', limit: 6, spent: 6 });
      expect(report.over.spent.modelRequests).toBe(6);
      // At the server: 6 for the first run, 6 for the second, all from the worker.
      expect(s.server.requests.byWorker.get('worker-1')).toBe(12);
      expect(s.server.requests.total).toBe(12);
    });
  }, NO_TIMEOUT);
});
