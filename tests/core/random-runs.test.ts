import { describe, expect, it } from 'vitest';
import { exportRun, parseRunExport, usageRollup, WorkflowTreeDebugger, type TokenUsage, type WorkflowNode } from 'groundswell';
import { LoadedNode } from '../../src/debugger/loaded-node.js';
import { ViewerModel } from '../../src/viewer/viewer-model.js';
import { runningNodes } from '../support/agent-helpers.js';
import { randomRun } from '../support/random-run.js';

/**
 * Whatever a run's shape and however small its retention, the tree must still add up to what
 * happened: every token the model reported is in the root's total, live, in the debugger's stats,
 * after an export and reload, and on the viewer's root row.
 */

function tokensOf(usage: TokenUsage | undefined): [number, number, number] {
  return [usage?.inputTokens ?? 0, usage?.outputTokens ?? 0, usage?.cacheReadInputTokens ?? 0];
}

async function life(seed: number, cached: boolean): Promise<void> {
  const { run, handedOut, retention } = randomRun(seed, { cached });
  let ends = 0;
  let hits = 0;
  run.addObserver({
    onEvent(event) {
      if (event.type === 'agentPromptEnd') ends += 1;
      if (event.type === 'cacheHit') hits += 1;
    },
  });
  await run.run();

  const context = `seed ${seed}, retention ${JSON.stringify(retention)}, ${handedOut.answers} calls, ${hits} answered from the cache`;
  const want = [handedOut.input, handedOut.output, handedOut.cached];
  // A call answered from the cache asks the model nothing and adds no tokens.
  expect(ends, context).toBe(handedOut.answers + hits);
  expect(runningNodes(run.node), `${context}: still running`).toEqual([]);
  expect(tokensOf(usageRollup(run.node).get(run.node)), `${context}: live`).toEqual(want);
  expect(tokensOf(new WorkflowTreeDebugger(run).getStats().usage), `${context}: stats`).toEqual(want);
  const exported = exportRun(run.node, 0);
  const reloaded: WorkflowNode = LoadedNode.load(parseRunExport(JSON.stringify(exported)).root);
  expect(tokensOf(usageRollup(reloaded).get(reloaded)), `${context}: exported`).toEqual(want);
  // A reloaded run exports as it was exported: nothing is lost or changed on the way.
  expect(exportRun(reloaded, 0), `${context}: exported again`).toEqual(exported);
  const viewer = new ViewerModel();
  viewer.setRoot(run.node);
  const live = viewer.refresh().upserted;
  expect(tokensOf(live[0]?.[10]), `${context}: viewer`).toEqual(want);
  // The viewer shows the reloaded run row for row as it showed the live one.
  const stored = new ViewerModel();
  stored.setRoot(reloaded);
  expect(stored.refresh().upserted, `${context}: viewer of the reloaded run`).toEqual(live);
}

// 150 runs of each take about a second here; 4,000 passed once, and 1,000 with the cache on
// (its first 300 answered 3,577 calls from the cache).
describe('random runs under small retention', () => {
  it('keep every token the model reported in the root total: live, in the stats, exported and on the viewer; export and reload change nothing', { timeout: 120_000 }, async () => {
    for (let seed = 1; seed <= 150; seed += 1) await life(seed, false);
  });

  it('do so with an agent that answers repeated calls from its cache', { timeout: 120_000 }, async () => {
    for (let seed = 1; seed <= 150; seed += 1) await life(seed, true);
  });
});
