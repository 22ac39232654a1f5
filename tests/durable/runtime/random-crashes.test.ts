import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resume, RunFinishedError } from 'groundswell';
import { exportRecording, JournalRunStore, MemoryRunStore, type RunStore } from 'groundswell/durable';
import { runningNodes } from '../../support/agent-helpers.js';
import { randomRun } from '../../support/random-run.js';
import { seeded } from '../../support/seeded.js';

/**
 * Durable runs of random shape (fan-outs, calls in and out of steps, tools, failing children)
 * whose process dies at a random store call, before it runs or right after, then are resumed by
 * another (on the journal store, through a store of its own on the same folder): the run
 * completes, and the second process asks the model exactly for the calls the store had not
 * acknowledged: none it stored is asked again, none is lost.
 */

const folder = mkdtempSync(join(tmpdir(), 'groundswell-random-crashes-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The store the dying process uses, and the one the resuming process opens. */
function stores(kind: 'memory' | 'journal', seed: number): { first: RunStore; second: () => RunStore } {
  if (kind === 'memory') {
    const store = new MemoryRunStore();
    return { first: store, second: () => store };
  }
  const dir = join(folder, String(seed));
  return { first: new JournalRunStore({ dir }), second: () => new JournalRunStore({ dir }) };
}

const never = new Promise<never>(() => undefined);

/** The store as a process that dies at its `at`-th store call sees it: the call and all after never answer. */
function dying(store: RunStore, at: number, afterRunning: boolean): { store: RunStore; died: Promise<void> } {
  let calls = 0;
  let die!: () => void;
  const died = new Promise<void>((resolve) => (die = resolve));
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function' || name === 'close') return value;
      const method = value as (...args: unknown[]) => Promise<unknown>;
      return (...args: unknown[]): Promise<unknown> => {
        calls += 1;
        if (calls < at) return method.apply(target, args);
        if (calls === at) {
          die();
          // Killed after the store ran the call: it is stored, and nobody hears of it.
          if (afterRunning) void Promise.resolve(method.apply(target, args)).catch(() => undefined);
        }
        return never;
      };
    },
  });
  return { store: proxy, died };
}

async function life(seed: number, kind: 'memory' | 'journal'): Promise<'resumed' | 'finished' | 'never died'> {
  const next = seeded(seed * 101 + 1);
  const at = 2 + Math.floor(next() * 60);
  const afterRunning = next() < 0.5;
  const runId = `run-${seed}`;
  // The same program run to its end counts its calls.
  const whole = randomRun(seed, { replace: false, durable: { store: new MemoryRunStore(), runId } });
  await whole.run.run();
  const calls = whole.handedOut.answers;

  const { first: used, second } = stores(kind, seed);
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

// 60 runs of each take a second or two here; 1,000 on the in-memory store passed once (613
// resumed, 20 died after storing their end), and 300 on the journal store (180 resumed).
describe('random durable runs killed at a random store call', () => {
  for (const kind of ['memory', 'journal'] as const) {
    it(`resume to the end, asking the model only for what the store had not acknowledged (${kind} store)`, { timeout: 120_000 }, async () => {
      const outcomes: string[] = [];
      for (let seed = 1; seed <= 60; seed += 1) outcomes.push(await life(seed, kind));
      expect(outcomes.filter((outcome) => outcome === 'resumed').length).toBeGreaterThan(20);
    });
  }
});
