/**
 * W7: one parent spawns child workflows in a loop, in batches of 10,000, and never stops. Each
 * batch must cost what the first did (flat within 1.3x) and the heap must not grow with the
 * number of children spawned: finished children are pruned by retention like steps.
 */
import { createWorkflow } from 'groundswell';
import { elapsedNs, fixed2, fmtBytes, fmtMs, forceGc, heapUsed, int, now, recordRatio, section, table } from './harness.js';

const BATCHES = 4;
const PER_BATCH = 10_000;
const TARGET_RATIO = 1.3;

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
    kept = ctx.workflow.children.length;
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
  console.log(
    `  worst batch ${fixed2(worst)}x the first (target ≤ ${TARGET_RATIO}x: ${recordRatio('W7', 'worst batch vs batch 1', worst, TARGET_RATIO)}); ` +
      `children kept by the parent at the end: ${int(kept)} (retention default 1,000 + batch slack)\n` +
      `  heap kept per child the parent holds (growth over the run / children kept): ${fmtBytes((heaps[heaps.length - 1] as number - heapBefore) / Math.max(1, kept))}`,
  );
}
