/**
 * W7: one parent spawns child workflows in a loop, in batches of 10,000, and never stops. Each
 * batch must cost what the first did (flat within 1.3x) and the heap must not grow with the
 * number of children spawned: finished children are pruned by retention like steps, so the heap
 * the loop keeps, per child spawned, must stay under 300 bytes. A second part measures what one
 * finished child costs while its parent still keeps all of it (a loop of 1,000, all within
 * retention): info, since retention, not the child's size, bounds what a long loop keeps
 * (decision 0065).
 */
import { createWorkflow } from 'groundswell';
import { elapsedNs, fixed2, fmtBytes, fmtMs, forceGc, heapUsed, int, measure, now, recordRatio, section, table } from './harness.js';

const BATCHES = 4;
const PER_BATCH = 10_000;
const TARGET_RATIO = 1.3;
const KEPT_LOOP = 1_000;
const TARGET_BYTES_PER_CHILD = 300;

/** A parent that spawned `count` one-step children in a loop and finished: what the probe keeps. */
async function spawnLoop(count: number): Promise<unknown> {
  const parent = createWorkflow<void>('kept-loop', async (ctx) => {
    for (let i = 0; i < count; i += 1) {
      await ctx.spawnWorkflow(createWorkflow({ name: `child-${i}` }, async (c) => c.step('work', () => i)));
    }
  });
  parent.addObserver({ onEvent() {} });
  await parent.run();
  return parent;
}

export async function runW7(): Promise<void> {
  section(`W7  one parent spawning ${int(BATCHES * PER_BATCH)} child workflows in a loop (${BATCHES} batches of ${int(PER_BATCH)}, one step each)`);
  const times: number[] = [];
  const heaps: number[] = [];
  let kept = 0;
  let heapBefore = 0;
  const root = createWorkflow<void>('spawn-loop', async (ctx) => {
    forceGc();
    heapBefore = heapUsed();
    for (let b = 0; b < BATCHES; b += 1) {
      const start = now();
      for (let i = 0; i < PER_BATCH; i += 1) {
        await ctx.spawnWorkflow(createWorkflow({ name: `child-${b}-${i}` }, async (c) => c.step('work', () => i)));
      }
      times.push(elapsedNs(start));
      forceGc();
      heaps.push(heapUsed());
    }
    kept = ctx.workflow.node.children.length;
  });
  root.addObserver({ onEvent() {} });
  await root.run();
  const first = times[0] as number;
  const worst = Math.max(...times) / first;
  console.log(
    table(
      ['batch', 'time', 'per child', 'vs batch 1', 'heap after batch'],
      times.map((t, i) => [String(i + 1), fmtMs(t), fmtMs(t / PER_BATCH), `${fixed2(t / first)}x`, fmtBytes(heaps[i] as number)]),
    ),
  );
  const perSpawned = (heaps[heaps.length - 1] as number - heapBefore) / (BATCHES * PER_BATCH);
  console.log(
    `  worst batch ${fixed2(worst)}x the first (target ≤ ${TARGET_RATIO}x: ${recordRatio('W7', 'worst batch vs batch 1', worst, TARGET_RATIO)}); ` +
      `children the parent's node keeps at the end: ${int(kept)} (retention default 1,000 + batch slack)\n` +
      `  heap the loop kept per child spawned (growth over the run after a forced GC / ${int(BATCHES * PER_BATCH)}): ${fmtBytes(perSpawned)} = ` +
      `${fixed2(perSpawned / TARGET_BYTES_PER_CHILD)}x of ${TARGET_BYTES_PER_CHILD} B ` +
      `(target ≤ 1.00x: ${recordRatio('W7', `heap per child spawned / ${TARGET_BYTES_PER_CHILD} B`, perSpawned / TARGET_BYTES_PER_CHILD, 1)})\n` +
      `  heap per child the parent still holds at the end (growth / children kept, info): ${fmtBytes((heaps[heaps.length - 1] as number - heapBefore) / Math.max(1, kept))}`,
  );
  // Retained heap of a whole finished run (median of 5 after 2 warm-ups), per child, every child
  // still within retention: what a kept child costs in full (info).
  const probe = await measure(() => spawnLoop(KEPT_LOOP), { retained: true, runs: 5 });
  const perChild = probe.medianRetained / KEPT_LOOP;
  console.log(
    `  heap per kept child, a loop of ${int(KEPT_LOOP)} children all within retention (retained after forced GC / ${int(KEPT_LOOP)}, info): ` +
      `${fmtBytes(perChild)}: two tree nodes, the child's Workflow (the parent's children list) and its events`,
  );
}
