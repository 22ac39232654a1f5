import { describe, expect, it } from 'vitest';
import { exportRun, parseRunExport, usageRollup, type TokenUsage, type WorkflowNode } from 'groundswell';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { LoadedNode } from '../../src/debugger/loaded-node.js';
import { runningNodes } from '../support/agent-helpers.js';
import { randomRun } from '../support/random-run.js';
import { seeded } from '../support/seeded.js';

/**
 * Random runs cancelled at a random moment between their events: the run settles, nothing is
 * left running (after the work already under way has stopped), every token of every model
 * request the run reported is in the root's total, and the run exports and reloads unchanged.
 */

function tokensOf(usage: TokenUsage | undefined): [number, number, number] {
  return [usage?.inputTokens ?? 0, usage?.outputTokens ?? 0, usage?.cacheReadInputTokens ?? 0];
}

async function life(seed: number): Promise<void> {
  const { run } = randomRun(seed);
  const at = 1 + Math.floor(seeded(seed * 17 + 3)() * 80);
  let events = 0;
  let cancelled = false;
  const reported: [number, number, number] = [0, 0, 0];
  run.addObserver({
    onEvent(event) {
      events += 1;
      if (event.type === 'modelRequest') {
        const [input, output, cached] = tokensOf(event.usage);
        reported[0] += input;
        reported[1] += output;
        reported[2] += cached;
      }
      if (events === at) {
        queueMicrotask(() => {
          cancelled = true;
          run.cancel('enough');
        });
      }
    },
  });
  const outcome = await run.run().then(
    () => 'completed',
    (error: unknown) => (error as Error).name,
  );
  const context = `seed ${seed}, cancelled after event ${at} of ${events}: ${outcome}`;
  if (cancelled) expect(['WorkflowCancelledError', 'completed'], context).toContain(outcome);
  // Work already under way (a call's answer, a step's body) stops at its next turn.
  for (let turn = 0; turn < 5; turn += 1) await nextTurn();
  expect(runningNodes(run.node), `${context}: still running`).toEqual([]);
  expect(tokensOf(usageRollup(run.node).get(run.node)), `${context}: tokens`).toEqual(reported);
  const exported = exportRun(run.node, 0);
  const reloaded: WorkflowNode = LoadedNode.load(parseRunExport(JSON.stringify(exported)).root);
  expect(exportRun(reloaded, 0), `${context}: exported again`).toEqual(exported);
}

// 150 runs take about a second here; 2,000 passed once (two thirds of them cancelled part way).
describe('random runs cancelled at a random moment', () => {
  it('settle with nothing running and every reported token in the total', { timeout: 120_000 }, async () => {
    for (let seed = 1; seed <= 150; seed += 1) await life(seed);
  });
});
