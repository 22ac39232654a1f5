import { describe, expect, it } from 'vitest';
import { runningNodes } from '../support/agent-helpers.js';
import { randomRun } from '../support/random-run.js';
import { seeded } from '../support/seeded.js';
import { budgetErrorIn } from './budget-helpers.js';

/**
 * Runs of random shape (fan-outs whose calls ask at once, calls in and out of steps, tools,
 * child workflows, some failing) under a tight random budget on the whole run, counted where the
 * model answers: the tokens it handed out and the requests it got never pass the budget, and a
 * run the budget stopped leaves nothing running.
 */

async function life(seed: number): Promise<boolean> {
  const next = seeded(seed * 7 + 11);
  const budget = { tokens: 100 + Math.floor(next() * 3_000), modelRequests: 1 + Math.floor(next() * 20) };
  const { run, handedOut } = randomRun(seed, { budget, replace: false });
  const error = await run.run().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  const context = `seed ${seed}, budget ${JSON.stringify(budget)}`;
  expect(handedOut.input + handedOut.output + handedOut.cached, `${context}: tokens the model handed out`).toBeLessThanOrEqual(budget.tokens);
  expect(handedOut.turns, `${context}: requests the model got`).toBeLessThanOrEqual(budget.modelRequests);
  expect(runningNodes(run.node), context).toEqual([]);
  if (error !== undefined) expect(budgetErrorIn(error), `${context}: stopped by ${String(error)}`).toBeDefined();
  return error !== undefined;
}

// 100 runs take about a second here; 1,500 passed once (of the first 400, 363 were stopped by the budget).
describe('random runs under a tight budget', () => {
  it('never pass it, counted at the model', { timeout: 120_000 }, async () => {
    let stopped = 0;
    for (let seed = 1; seed <= 100; seed += 1) if (await life(seed)) stopped += 1;
    expect(stopped).toBeGreaterThan(50);
  });
});
