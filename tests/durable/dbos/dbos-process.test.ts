import { describe, expect, it } from 'vitest';
import { createWorkflow, UsageError } from 'groundswell';
import { dbosChildren, dbosLauncher, dbosWorker, dbosWorkflows, type DbosProcessLike } from 'groundswell/dbos';
import { fakeDbos } from './support/fake-dbos.js';
import { STALL_MS } from './support/progress.js';

/** A `DBOS` that records what a process set up, in order. */
function recordingDbos(): DbosProcessLike & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    setConfig: (config) => void calls.push(['setConfig', config]),
    launch: async () => void calls.push(['launch']),
    registerQueue: async (name, options) => void calls.push(['registerQueue', name, options]),
  };
}

const settings = { name: 'app', systemDatabaseUrl: 'postgresql://db/app', queues: [{ name: 'topics', workerConcurrency: 4 }] };

// In-process only, nothing to watch for progress: the stall window bounds each whole test instead of
// vitest's 5 s default, which a loaded machine overran while loading the libraries on first use.
describe('groundswell/dbos processes', { timeout: STALL_MS }, () => {
  it('a worker: its own executor id, launched, then its queues with a 100 ms polling interval', async () => {
    const dbos = recordingDbos();
    await dbosWorker(dbos, { ...settings, executorID: 'worker-1' });
    expect(dbos.calls).toEqual([
      ['setConfig', { name: 'app', systemDatabaseUrl: 'postgresql://db/app', executorID: 'worker-1', logLevel: 'warn' }],
      ['launch'],
      ['registerQueue', 'topics', { workerConcurrency: 4, minPollingIntervalMs: 100 }],
    ]);
  });

  it('a launcher listens to no queue, and a shared executor id is refused', async () => {
    const dbos = recordingDbos();
    await dbosLauncher(dbos, { ...settings, executorID: 'launcher', pollingIntervalMs: 50 });
    expect(dbos.calls).toEqual([
      ['setConfig', { name: 'app', systemDatabaseUrl: 'postgresql://db/app', executorID: 'launcher', logLevel: 'warn', listenQueues: [] }],
      ['launch'],
      ['registerQueue', 'topics', { workerConcurrency: 4, minPollingIntervalMs: 50 }],
    ]);
    await expect(dbosWorker(recordingDbos(), { ...settings, executorID: 'local' })).rejects.toThrow(UsageError);
  });

  it('names a child by its factory: input and result typed, run as the registry names it', async () => {
    const dbos = fakeDbos();
    const Double = (input: { n: number }) => createWorkflow({ name: 'Double' }, async () => input.n * 2);
    const Stray = (input: { n: number }) => createWorkflow({ name: 'Stray' }, async () => input.n);
    const flows = dbosWorkflows(
      dbos,
      {
        Double,
        Sum: (input: { ns: number[] }) =>
          createWorkflow({ name: 'Sum' }, (ctx) =>
            ctx.step('double', async () => {
              const doubled: number[] = await dbosChildren({ name: 'q' }, Double, input.ns.map((n) => ({ n })));
              return doubled.reduce((a, b) => a + b, 0);
            }),
          ),
        Strays: () => createWorkflow({ name: 'Strays' }, (ctx) => ctx.step('stray', () => dbosChildren({ name: 'q' }, Stray, [{ n: 1 }]))),
      },
      { name: 'process-test' },
    );
    expect(await flows.run('Sum', { ns: [1, 2, 3] })).toBe(12);
    await expect(flows.run('Strays', undefined as never)).rejects.toThrow(/Stray is not in the dbosWorkflows registry/);
  });
});
