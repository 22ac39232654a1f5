/**
 * W7: one parent spawns child workflows in a loop, in batches of 10,000, and never stops; in each
 * shape a user writes it: a spawn directly, a spawn inside `ctx.step`, and `@Task` children of a
 * class workflow. Finished children are pruned by retention like steps, so the heap must not grow
 * with the children spawned: the slope between two late batches (after a forced GC, past
 * retention) must stay ≤ 50 B per child, in every shape. Each batch must cost what the first did
 * (within 1.3×). A child its parent still keeps in full (a loop of 1,000, all within retention)
 * may cost ≤ 600 B.
 */
import { createWorkflow, Task, Workflow, type WorkflowContext } from 'groundswell';
import { elapsedNs, fixed2, fmtBytes, fmtMs, forceGc, heapUsed, int, measure, now, recordRatio, section, table } from './harness.js';

const BATCHES = 4;
const PER_BATCH = 10_000;
/** The slope is read from the heap after this batch to the heap after the last (1-based). */
const SLOPE_FROM = 2;
const TARGET_RATIO = 1.3;
/** Heap per child spawned between two late batches: the loop must not keep finished children. */
const TARGET_SLOPE_BYTES = 50;
const KEPT_LOOP = 1_000;
/** Heap per finished child the parent still keeps in full. */
const TARGET_KEPT_BYTES = 600;

const child = (name: string, i: number): Workflow<number> => createWorkflow({ name }, async (c) => c.step('work', () => i));

interface LoopReading {
  times: number[];
  heaps: number[];
  heapBefore: number;
  /** Nodes directly under the parent's node at the end (children, or the steps holding them). */
  kept: number;
}

/** The loop itself: BATCHES batches of `spawn`, each timed, a forced GC and a heap reading after each. */
async function batches(spawn: (b: number, i: number) => Promise<unknown>, reading: LoopReading): Promise<void> {
  forceGc();
  reading.heapBefore = heapUsed();
  for (let b = 0; b < BATCHES; b += 1) {
    const start = now();
    for (let i = 0; i < PER_BATCH; i += 1) await spawn(b, i);
    reading.times.push(elapsedNs(start));
    forceGc();
    reading.heaps.push(heapUsed());
  }
}

const newReading = (): LoopReading => ({ times: [], heaps: [], heapBefore: 0, kept: 0 });

type Shape = (ctx: WorkflowContext, b: number, i: number) => Promise<unknown>;

/** A functional parent whose loop spawns in `shape`. */
async function functionalLoop(shape: Shape): Promise<LoopReading> {
  const reading = newReading();
  const root = createWorkflow<void>('spawn-loop', async (ctx) => {
    await batches((b, i) => shape(ctx, b, i), reading);
    reading.kept = ctx.workflow.node.children.length;
  });
  root.addObserver({ onEvent() {} });
  await root.run();
  return reading;
}

/** A class workflow whose loop calls a @Task returning one child workflow per item. */
class TaskLoop extends Workflow<void> {
  readonly reading = newReading();

  constructor() {
    super('task-spawn-loop');
  }

  @Task() async spawnOne(b: number, i: number): Promise<Workflow<number>> {
    return child(`child-${b}-${i}`, i);
  }

  override async run(): Promise<void> {
    await batches((b, i) => this.spawnOne(b, i), this.reading);
    this.reading.kept = this.node.children.length;
  }
}

async function taskLoop(): Promise<LoopReading> {
  const parent = new TaskLoop();
  parent.addObserver({ onEvent() {} });
  await parent.run();
  return parent.reading;
}

const SHAPES: ReadonlyArray<readonly [string, () => Promise<LoopReading>]> = [
  ['a spawn directly', () => functionalLoop((ctx, b, i) => ctx.spawnWorkflow(child(`child-${b}-${i}`, i)))],
  ['a spawn inside ctx.step', () => functionalLoop((ctx, b, i) => ctx.step('tick', () => ctx.spawnWorkflow(child(`child-${b}-${i}`, i))))],
  ['@Task children of a class workflow', taskLoop],
];

/** A parent that spawned `count` one-step children in a loop and finished: what the probe keeps. */
async function spawnLoop(count: number): Promise<unknown> {
  const parent = createWorkflow<void>('kept-loop', async (ctx) => {
    for (let i = 0; i < count; i += 1) await ctx.spawnWorkflow(child(`child-${i}`, i));
  });
  parent.addObserver({ onEvent() {} });
  await parent.run();
  return parent;
}

export async function runW7(): Promise<void> {
  section(`W7  one parent spawning ${int(BATCHES * PER_BATCH)} child workflows in a loop (${BATCHES} batches of ${int(PER_BATCH)}, one step each), per shape`);
  const rows: string[][] = [];
  for (const [label, loop] of SHAPES) {
    const { times, heaps, heapBefore, kept } = await loop();
    const first = times[0] as number;
    const worst = Math.max(...times) / first;
    // Past retention, between two late batches: what each further finished child adds to the heap.
    const slope = ((heaps[BATCHES - 1] as number) - (heaps[SLOPE_FROM - 1] as number)) / ((BATCHES - SLOPE_FROM) * PER_BATCH);
    const overRun = ((heaps[BATCHES - 1] as number) - heapBefore) / (BATCHES * PER_BATCH);
    rows.push([
      label,
      times.map((t) => fmtMs(t)).join(' / '),
      `${fixed2(worst)}x ${recordRatio('W7', `${label}: worst batch vs batch 1`, worst, TARGET_RATIO)}`,
      heaps.map(fmtBytes).join(' / '),
      `${fmtBytes(slope)} ${recordRatio('W7', `${label}: heap slope per child, batch ${SLOPE_FROM} -> ${BATCHES} / ${TARGET_SLOPE_BYTES} B`, slope / TARGET_SLOPE_BYTES, 1)}`,
      fmtBytes(overRun),
      int(kept),
    ]);
  }
  console.log(
    table(
      [
        'shape',
        'batch times',
        `worst vs batch 1 (≤ ${TARGET_RATIO}x)`,
        'heap after each batch (forced GC)',
        `slope per child, batch ${SLOPE_FROM} -> ${BATCHES} (≤ ${TARGET_SLOPE_BYTES} B)`,
        'per child over the run (info)',
        'nodes under the parent (info)',
      ],
      rows,
      ['left', 'right', 'left', 'right', 'left', 'right', 'right'],
    ),
  );
  // Retained heap of a whole finished run (median of 5 after 2 warm-ups), per child, every child
  // still within retention: what a kept child costs in full.
  const probe = await measure(() => spawnLoop(KEPT_LOOP), { retained: true, runs: 5 });
  const perChild = probe.medianRetained / KEPT_LOOP;
  console.log(
    `  (slope: heap after batch ${BATCHES} minus after batch ${SLOPE_FROM}, each after a forced GC, / ${int((BATCHES - SLOPE_FROM) * PER_BATCH)} children, all past\n` +
      `   retention (default 1,000 per node); "over the run": heap after the last batch minus before the first / ${int(BATCHES * PER_BATCH)})\n` +
      `  heap per fully kept child, a loop of ${int(KEPT_LOOP)} children all within retention (retained after forced GC / ${int(KEPT_LOOP)}): ` +
      `${fmtBytes(perChild)} (target ≤ ${TARGET_KEPT_BYTES} B: ${recordRatio('W7', `heap per fully kept child / ${TARGET_KEPT_BYTES} B`, perChild / TARGET_KEPT_BYTES, 1)}):\n` +
      `   two tree nodes, the child's Workflow (the parent's children list) and its events\n` +
      // Info: each run's reading, so the spread is visible (compiled code made or dropped during a
      // run counts in heapUsed too and moves single runs by ±100 B per child).
      `   each run (info): ${probe.retainedSamples.map((bytes) => fmtBytes(bytes / KEPT_LOOP)).join(' / ')}`,
  );
}
