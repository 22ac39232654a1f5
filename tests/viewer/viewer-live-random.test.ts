import { describe, expect, it } from 'vitest';
import { usageRollup, type WorkflowNode } from 'groundswell';
import { walkTree } from '../../src/util/tree-walk.js';
import { wireRow } from '../../src/viewer/node-row.js';
import { ViewerModel } from '../../src/viewer/viewer-model.js';
import { applyBatch } from './apply-batch.js';
import type { WireRow } from '../../src/viewer/wire-row.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { randomRun } from '../support/random-run.js';
import { seeded } from '../support/seeded.js';

/**
 * Real runs of random shape (calls that use a tool, replaced calls, failing children, fan-outs)
 * under small retention, watched by the viewer's model the way the viewer's server feeds it (each
 * event, log and tree change marks its node) and refreshed at random moments, as batches come: the
 * page that applied every batch ends up holding the rows of the tree as it is.
 */

async function life(seed: number, cancel: boolean): Promise<void> {
  const { run } = randomRun(seed);
  // With `cancel`: cancelled between two of its events, at a random one.
  const at = cancel ? 1 + Math.floor(seeded(seed * 13 + 5)() * 80) : 0;
  let events = 0;
  const next = seeded(seed * 31 + 7);
  const model = new ViewerModel();
  model.setRoot(run.node);
  const page = new Map<string, WireRow>();
  const context = `seed ${seed}${cancel ? ', cancelled' : ''}`;
  applyBatch(page, model.refresh(), context);
  let batches = 0;
  // A batch now and then, once the code that reported an event has run on (a batch is made on a
  // timer's tick, never inside an event's report: a tool call reports, then finishes).
  const maybeRefresh = (): void => {
    if (next() < 0.15) {
      queueMicrotask(() => {
        batches += 1;
        applyBatch(page, model.refresh(), `${context}, batch ${batches}`);
      });
    }
  };
  run.addObserver({
    onEvent: (event, node) => {
      if (node !== undefined) model.touch(node);
      else model.touchId(event.nodeId);
      maybeRefresh();
      events += 1;
      if (events === at) queueMicrotask(() => run.cancel('enough'));
    },
    onLog: (entry) => model.touchId(entry.nodeId),
    onStateUpdated: (node) => model.touch(node),
    onTreeChanged: (top) => model.touch(top),
  });
  await run.run().catch(() => undefined);
  // Work already under way (a call's answer, a step's body) stops at its next turn.
  for (let turn = 0; turn < 5; turn += 1) await nextTurn();
  applyBatch(page, model.refresh(), `${context}, last batch`);
  // The tree's rows as they are now, with the watching model's time base (it was set before the run started).
  const totals = usageRollup(run.node);
  const rows = [...walkTree<WorkflowNode>(run.node)].map((node) => wireRow(node, totals.get(node), model.timeBase));
  expect(page, `${context} after ${batches} batches`).toEqual(new Map(rows.map((row) => [row[0], row])));
}

// 150 runs of each take about a second here; 2,000 cancelled ones passed once.
describe('the viewer model watching random runs', () => {
  it('leaves the watching page holding the rows of the tree as it is', { timeout: 120_000 }, async () => {
    for (let seed = 1; seed <= 150; seed += 1) await life(seed, false);
  });

  it('does so for runs cancelled at a random moment', { timeout: 120_000 }, async () => {
    for (let seed = 1; seed <= 150; seed += 1) await life(seed, true);
  });
});
