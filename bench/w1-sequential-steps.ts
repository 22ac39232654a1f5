/**
 * W1: sequential `@Step` calls on one workflow with one root observer (onEvent).
 * Time per step against the floor (the same awaited steps in one AsyncLocalStorage.run with a
 * start and an end event each, see floors.ts), heap retained per step while the finished workflow
 * is still referenced, with default retention and with everything kept; plus one 1,000,000-step
 * run for peak heap.
 */
import { Step, Workflow, type RetentionOptions } from 'groundswell';
import {
  DEFAULT_WARMUP,
  elapsedNs,
  fixed1,
  fmtBytes,
  fmtNs,
  forceGc,
  heapLimit,
  heapUsed,
  int,
  holder,
  measure,
  type Measurement,
  now,
  section,
  table,
  verdict,
  fmtX,
  measureInterleaved,
  recordRatio,
} from './harness.js';
import { floorScopedSteps, floorSteps, type FloorObserver } from './floors.js';

const STEPS = 100_000;
const BIG_STEPS = 1_000_000;
/** Absolute, informational only. */
const TARGET_NS_PER_STEP = 1_000;
/** W1 ≤ 3× its floor. */
const TARGET_RATIO = 3;

const floorObserver: FloorObserver & { events: number } = {
  events: 0,
  onEvent() {
    this.events += 1;
  },
};

async function floorRun(): Promise<number> {
  const done = await floorSteps(STEPS, floorObserver);
  if (done !== STEPS) throw new Error(`W1 floor: expected ${STEPS} steps, got ${done}`);
  return done;
}

/** The W1 floor: each step's async body in its own scope. */
async function scopedFloorRun(): Promise<number> {
  const done = await floorScopedSteps(STEPS, floorObserver);
  if (done !== STEPS) throw new Error(`W1 floor: expected ${STEPS} steps, got ${done}`);
  return done;
}

/**
 * The W1 floor as W3 measures it, interleaved with its own probes: a run of the floor (each
 * step's async body in its own scope; `ctx.step` gives its body its own scope too), a run of the
 * events-only floor (info), and how many events one run emits (two per step).
 */
export const W1_FLOOR_RUNS = { scoped: scopedFloorRun, eventsOnly: floorRun, eventsPerRun: 2 * STEPS } as const;

class StepLoop extends Workflow<number> {
  private count = 0;

  constructor(
    private readonly steps: number,
    retention?: Partial<RetentionOptions>,
    private readonly every?: { interval: number; callback: () => void },
  ) {
    super(retention === undefined ? { name: 'step-loop' } : { name: 'step-loop', retention });
  }

  @Step()
  async tick(): Promise<number> {
    return ++this.count;
  }

  override async run(): Promise<number> {
    const every = this.every;
    for (let i = 0; i < this.steps; i += 1) {
      await this.tick();
      if (every !== undefined && i % every.interval === 0) every.callback();
    }
    return this.count;
  }
}

/** The same loop without groundswell: a plain class, a plain async method. */
class PlainLoop {
  private count = 0;

  constructor(private readonly steps: number) {}

  async tick(): Promise<number> {
    return ++this.count;
  }

  async run(): Promise<number> {
    for (let i = 0; i < this.steps; i += 1) await this.tick();
    return this.count;
  }
}

interface Counter {
  events: number;
}

async function runSteps(steps: number, counter: Counter, retention?: Partial<RetentionOptions>): Promise<StepLoop> {
  const wf = new StepLoop(steps, retention);
  wf.addObserver({
    onEvent() {
      counter.events += 1;
    },
  });
  const result = await wf.run();
  if (result !== steps) throw new Error(`W1: expected ${steps} steps, got ${result}`);
  return wf; // kept referenced by the harness for the retained-heap probe
}

async function plainRun(): Promise<PlainLoop> {
  const loop = new PlainLoop(STEPS);
  await loop.run();
  return loop;
}

/** Measured before any workflow has run, so Node's promise hooks for AsyncLocalStorage are still off. */
export async function baselineW1(): Promise<Measurement> {
  return measure(plainRun);
}

export async function runW1(plain: Measurement): Promise<void> {
  section(`W1  ${int(STEPS)} sequential @Step calls (one workflow, one root observer with onEvent)`);
  const plainPerStep = plain.medianNs / STEPS;
  floorObserver.events = 0;

  const counter: Counter = { events: 0 };
  // The ratio: workload and floor interleaved run by run.
  const [stepsTimed, floor, eventFloor] = (await measureInterleaved([() => runSteps(STEPS, counter), scopedFloorRun, floorRun])) as [
    Measurement,
    Measurement,
    Measurement,
  ];
  const eventsPerRun = counter.events / (stepsTimed.samples.length + DEFAULT_WARMUP);
  const floorPerStep = floor.medianNs / STEPS;
  const byDefault = await measure(() => runSteps(STEPS, counter), { retained: true });
  const keepAll = await measure(() => runSteps(STEPS, counter, { maxChildrenPerNode: 1_000_000 }), { retained: true });
  // The same plain loop again, now that AsyncLocalStorage has installed promise hooks process-wide.
  const plainAfter = await measure(plainRun);

  const perStep = stepsTimed.medianNs / STEPS;
  const ratio = perStep / floorPerStep;
  const rows: string[][] = [
    ['plain async, no AsyncLocalStorage (info)', fmtNs(plainPerStep), fmtNs(plain.minNs / STEPS), fmtX(plainPerStep / floorPerStep), '-', '-', '-', '-'],
    ['FLOOR: async body in its own ALS scope, start+end event per step', fmtNs(floorPerStep), fmtNs(floor.minNs / STEPS), '1.00x', '-', '-', '-', '-'],
    [
      "events only: sync body, one ALS.run for all (info)",
      fmtNs(eventFloor.medianNs / STEPS),
      fmtNs(eventFloor.minNs / STEPS),
      fmtX(eventFloor.medianNs / STEPS / floorPerStep),
      '-',
      '-',
      '-',
      '-',
    ],
    [
      '@Step, default retention',
      fmtNs(perStep),
      fmtNs(stepsTimed.minNs / STEPS),
      fmtX(ratio),
      `${int(byDefault.medianRetained / STEPS)} B`,
      `≤ ${fmtX(TARGET_RATIO)}`,
      recordRatio('W1', '@Step vs floor', ratio, TARGET_RATIO),
      `${verdict(perStep, TARGET_NS_PER_STEP)} ≤ ${int(TARGET_NS_PER_STEP)} ns`,
    ],
    [
      '@Step, keep all (maxChildrenPerNode 1e6) (info)',
      fmtNs(keepAll.medianNs / STEPS),
      fmtNs(keepAll.minNs / STEPS),
      fmtX(keepAll.medianNs / STEPS / floorPerStep),
      `${int(keepAll.medianRetained / STEPS)} B`,
      '-',
      '-',
      '-',
    ],
    [
      'plain async, ALS promise hooks on (info)',
      fmtNs(plainAfter.medianNs / STEPS),
      fmtNs(plainAfter.minNs / STEPS),
      fmtX(plainAfter.medianNs / STEPS / floorPerStep),
      '-',
      '-',
      '-',
      '-',
    ],
  ];
  console.log(
    table(['variant', 'median/step', 'min/step', 'vs floor', 'retained/step', 'target', 'status', 'absolute (info)'], rows, [
      'left',
      'right',
      'right',
      'right',
      'right',
      'right',
      'left',
      'left',
    ]),
  );
  console.log(
    `  (median of ${stepsTimed.samples.length} rounds after ${DEFAULT_WARMUP} warm-ups, @Step and floor interleaved; ~${int(eventsPerRun)} events/run\n` +
      `   reached the observer, ${int(floorObserver.events / 2 / Math.max(1, stepsTimed.samples.length + DEFAULT_WARMUP))} per floor run; floor: ${int(STEPS)} awaited steps, each running its\n` +
      `   async body in its own AsyncLocalStorage scope and handing a start and an end event object to an observer callback;\n` +
      `   retained = heapUsed after forced GC with the finished workflow referenced, minus before, / ${int(STEPS)} (separate runs);\n` +
      `   plain rows: the loop without ALS, before and after groundswell's ALS switched on Node 20's promise hooks)`,
  );

  // One long run, not repeated: it must finish with bounded memory under default retention.
  let peak = 0;
  forceGc();
  const before = heapUsed();
  const big = (holder.value = new StepLoop(BIG_STEPS, undefined, {
    interval: 10_000,
    callback: () => {
      const used = heapUsed();
      if (used > peak) peak = used;
    },
  }));
  let bigEvents = 0;
  big.addObserver({
    onEvent() {
      bigEvents += 1;
    },
  });
  const start = now();
  const done = await big.run();
  const ns = elapsedNs(start);
  peak = Math.max(peak, heapUsed());
  forceGc();
  const retainedAfter = heapUsed() - before;
  if (done !== BIG_STEPS) throw new Error(`W1: expected ${BIG_STEPS} steps, got ${done}`);
  console.log(`\n  ${int(BIG_STEPS)} steps, default retention, 1 run (memory check): completed`);
  console.log(
    table(
      ['time', 'per step', 'events', 'heapUsed start', 'peak heapUsed', 'heap limit', 'retained after GC'],
      [
        [
          `${(ns / 1e9).toFixed(2)} s`,
          fmtNs(ns / BIG_STEPS),
          int(bigEvents),
          fmtBytes(before),
          fmtBytes(peak),
          fmtBytes(heapLimit()),
          `${fmtBytes(retainedAfter)} (${fixed1(retainedAfter / BIG_STEPS)} B/step)`,
        ],
      ],
      ['right', 'right', 'right', 'right', 'right', 'right', 'right'],
    ),
  );
  console.log('  (peak = highest heapUsed sampled every 10,000 steps and at the end, without forcing GC)');
  holder.value = undefined;
}
