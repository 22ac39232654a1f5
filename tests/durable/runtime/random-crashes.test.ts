import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resume, RunFinishedError } from 'groundswell';
import { exportRecording, JournalRunStore, MemoryRunStore, type RunStore } from 'groundswell/durable';
import { PostgresRunStore } from 'groundswell/postgres';
import { probePostgres, useTestSchemas } from '../../support/postgres-service.js';
import { runningNodes } from '../../support/agent-helpers.js';
import { randomRun } from '../../support/random-run.js';
import { seeded } from '../../support/seeded.js';

/**
 * Durable runs of random shape (fan-outs, calls in and out of steps, tools, failing children)
 * whose process dies at a random store call, before it runs or right after, then are resumed by
 * another (on the journal store and PostgreSQL, through a store of its own): the run
 * completes, and the second process asks the model exactly for the calls the store had not
 * acknowledged: none it stored is asked again, none is lost.
 */

const folder = mkdtempSync(join(tmpdir(), 'groundswell-random-crashes-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const postgres = await probePostgres();
const schemas = useTestSchemas(postgres, 4);
let schema: string | undefined;

type Kind = 'memory' | 'journal' | 'postgres';

/** The store the dying process uses, and the one the resuming process opens. */
async function stores(kind: Kind, seed: number): Promise<{ first: RunStore; second: () => RunStore }> {
  if (kind === 'memory') {
    const store = new MemoryRunStore();
    return { first: store, second: () => store };
  }
  if (kind === 'postgres') {
    if (schema === undefined) {
      schema = schemas.schema('gs_random_crashes');
      await new PostgresRunStore({ pool: schemas.pool, schema }).migrate();
    }
    const at = schema;
    return { first: new PostgresRunStore({ pool: schemas.pool, schema: at }), second: () => new PostgresRunStore({ pool: schemas.pool, schema: at }) };
  }
  const dir = join(folder, String(seed));
  return { first: new JournalRunStore({ dir }), second: () => new JournalRunStore({ dir }) };
}

const never = new Promise<never>(() => undefined);

/**
 * The store as a process that dies at its `at`-th store call sees it: that call and all after never
 * answer. It is dead once the calls it had sent before have finished (what the store does with a
 * write still on its way when a process dies is the fault simulator's part, with leases).
 */
function dying(store: RunStore, at: number, afterRunning: boolean): { store: RunStore; died: Promise<void> } {
  let calls = 0;
  const sent: Promise<unknown>[] = [];
  let die!: () => void;
  const died = new Promise<void>((resolve) => (die = resolve));
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function' || name === 'close') return value;
      const method = value as (...args: unknown[]) => Promise<unknown>;
      return (...args: unknown[]): Promise<unknown> => {
        calls += 1;
        if (calls < at) {
          const answer = method.apply(target, args);
          sent.push(Promise.resolve(answer).catch(() => undefined));
          return answer;
        }
        if (calls === at) {
          // Killed after the store ran the call (it is stored, and nobody hears of it), or before.
          if (afterRunning) sent.push(Promise.resolve(method.apply(target, args)).catch(() => undefined));
          void Promise.all(sent).then(() => die());
        }
        return never;
      };
    },
  });
  return { store: proxy, died };
}

async function life(seed: number, kind: Kind): Promise<'resumed' | 'finished' | 'never died'> {
  const next = seeded(seed * 101 + 1);
  const at = 2 + Math.floor(next() * 60);
  const afterRunning = next() < 0.5;
  const runId = `run-${seed}`;
  // The same program run to its end counts its calls.
  const whole = randomRun(seed, { replace: false, durable: { store: new MemoryRunStore(), runId } });
  await whole.run.run();
  const calls = whole.handedOut.answers;

  const { first: used, second } = await stores(kind, seed);
  const first = dying(used, at, afterRunning);
  const killed = randomRun(seed, { replace: false, durable: { store: first.store, runId } });
  const ended = await Promise.race([killed.run.run().then(() => false, () => false), first.died.then(() => true)]);
  const context = `${kind} store, seed ${seed}, died at store call ${at} ${afterRunning ? 'after' : 'before'} it ran`;
  if (!ended) return 'never died';
  const store = second();
  try {
    const stored = await store.getRun(runId);
    if (stored === undefined) return 'never died';
    if (stored.status === 'completed') {
      // It died after storing its end: there is nothing to resume.
      await expect(resume(runId, { store, takeOver: true, workflows: { random: () => randomRun(seed).run } }), context).rejects.toBeInstanceOf(RunFinishedError);
      return 'finished';
    }
    const acknowledged = (await exportRecording(store, runId)).calls.length;
    let again: ReturnType<typeof randomRun> | undefined;
    await resume(runId, {
      store,
      takeOver: true,
      workflows: { random: (_input, { runId: id, store: from }) => (again = randomRun(seed, { replace: false, durable: { store: from, runId: id } })).run },
    });
    expect((await store.getRun(runId))?.status, context).toBe('completed');
    expect(again?.handedOut.answers, `${context}: calls asked again, of ${calls} with ${acknowledged} stored`).toBe(calls - acknowledged);
    expect(runningNodes((again as ReturnType<typeof randomRun>).run.node), context).toEqual([]);
    return 'resumed';
  } finally {
    // The resuming process's own store; the dying one's is left as a killed process leaves it.
    if (store !== used) await store.close();
  }
}

// 60 runs on each store take a second or three here; 400 on each passed once (238-245 resumed,
// 11-12 died after storing their end), and 1,000 on the in-memory store.
describe('random durable runs killed at a random store call', () => {
  for (const kind of ['memory', 'journal', 'postgres'] as const) {
    it.skipIf(kind === 'postgres' && !postgres.ok)(`resume to the end, asking the model only for what the store had not acknowledged (${kind} store)`, { timeout: 120_000 }, async () => {
      const outcomes: string[] = [];
      for (let seed = 1; seed <= 60; seed += 1) outcomes.push(await life(seed, kind));
      expect(outcomes.filter((outcome) => outcome === 'resumed').length).toBeGreaterThan(20);
    });
  }
});
