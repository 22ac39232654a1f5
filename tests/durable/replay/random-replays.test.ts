import { describe, expect, it } from 'vitest';
import { formatDivergence, recordRun, replayRun } from 'groundswell/durable';
import { randomRun, type HandedOut } from '../../support/random-run.js';

/**
 * Runs of random shape (steps, calls in and out of steps, some calling a tool, fan-outs, child
 * workflows, some failing) recorded, then replayed with the same code: the same run, every call
 * served from the recording and none sent to the model. Replaced calls are left out: which call is
 * a workflow's last depends on which answered last, so such a run is not the same run twice.
 */

async function life(seed: number): Promise<void> {
  const { recording } = await recordRun(randomRun(seed, { replace: false }).run);
  const asked: HandedOut[] = [];
  const result = await replayRun(recording, {
    workflows: {
      random: () => {
        const again = randomRun(seed, { replace: false });
        asked.push(again.handedOut);
        return again.run;
      },
    },
  });
  expect(result.same ? 'same' : formatDivergence(result.divergence), `seed ${seed}`).toBe('same');
  expect(asked.map((handed) => handed.turns), `seed ${seed}: requests that reached the model`).toEqual([0]);
}

// 100 replays take about a second here; 2,000 passed once.
describe('replays of random runs', () => {
  it('are the same run, with every call served from the recording', { timeout: 120_000 }, async () => {
    for (let seed = 1; seed <= 100; seed += 1) await life(seed);
  });
});
