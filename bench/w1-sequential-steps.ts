/**
 * W1: sequential `@Step` calls on one workflow with one root observer (onEvent).
 * Time per step and heap retained per step while the finished workflow is still referenced,
 * with default retention and with everything kept; plus one 1,000,000-step run for peak heap.
 */
import { Step, Workflow, type RetentionOptions } from 'groundswell';
import {
  DEFAULT_WARMUP,
  elapsedNs,
  fixed1,
  fmtBytes,
  fmtNs,
  fmtRatio,
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
} from './harness.js';

const STEPS = 100_000;
const BIG_STEPS = 1_000_000;
const TARGET_NS_PER_STEP = 1_000;

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

  const counter: Counter = { events: 0 };
  const byDefault = await measure(() => runSteps(STEPS, counter), { retained: true });
  const eventsPerRun = counter.events / (byDefault.samples.length + DEFAULT_WARMUP);
  const keepAll = await measure(() => runSteps(STEPS, counter, { maxChildrenPerNode: 1_000_000 }), { retained: true });
  // The same plain loop again, now that AsyncLocalStorage has installed promise hooks process-wide.
  const plainAfter = await measure(plainRun);

  const rows: string[][] = [['plain async baseline', fmtNs(plainPerStep), fmtNs(plain.minNs / STEPS), '1.0x', '-', '-', '-']];
  for (const [label, m] of [
    ['@Step, default retention', byDefault],
    ['@Step, keep all (maxChildrenPerNode 1e6)', keepAll],
  ] as const) {
    const perStep = m.medianNs / STEPS;
    rows.push([
      label,
      fmtNs(perStep),
      fmtNs(m.minNs / STEPS),
      fmtRatio(perStep, plainPerStep),
      `${int(m.medianRetained / STEPS)} B`,
      `≤ ${int(TARGET_NS_PER_STEP)} ns`,
      verdict(perStep, TARGET_NS_PER_STEP),
    ]);
  }
  rows.push([
    'plain async, ALS promise hooks on (info)',
    fmtNs(plainAfter.medianNs / STEPS),
    fmtNs(plainAfter.minNs / STEPS),
    fmtRatio(plainAfter.medianNs, plain.medianNs),
    '-',
    '-',
    '-',
  ]);
  console.log(
    table(['variant', 'median/step', 'min/step', 'vs plain', 'retained/step', 'target', 'status'], rows, [
      'left',
      'right',
      'right',
      'right',
      'right',
      'right',
      'left',
    ]),
  );
  console.log(
    `  (median of ${byDefault.samples.length} runs after ${DEFAULT_WARMUP} warm-ups; ~${int(eventsPerRun)} events/run reached the observer;\n` +
      `   retained = heapUsed after forced GC with the finished workflow referenced, minus before, / ${int(STEPS)};\n` +
      `   last row: the baseline loop re-run after groundswell's AsyncLocalStorage switched on Node 20's promise hooks)`,
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
