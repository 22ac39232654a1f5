/**
 * W3: cost of emitting from the deepest workflow of a nested chain (depth 1 = the root itself),
 * delivered to the one observer on the root. Public APIs only: `logger.info` (one log entry),
 * `snapshotState()` (one `stateSnapshot` event), `ctx.step` (a `stepStart` + `stepEnd` pair).
 * The targets are per event against a floor doing the same work (floors.ts): `ctx.step` with a
 * sync body against awaited steps whose sync body runs in its own AsyncLocalStorage scope (as
 * `ctx.step` gives its body one), a start and an end event each; `logger.info` and
 * `snapshotState()`, which emit synchronously, against a loop of `getStore()` plus one event
 * object to an observer. The W1 floor (async bodies) and the events-only floor print as info. The
 * chains of every depth stay open while their probes and all floors run interleaved, round by
 * round, so a change in the machine's load between cells moves all of them.
 */
import { createWorkflow, type Workflow, type WorkflowContext, type WorkflowObserver } from 'groundswell';
import { DEFAULT_WARMUP, fmtNs, fmtX, int, measure, measureInterleaved, recordRatio, section, table, verdict, type Measurement } from './harness.js';
import { floorScopedSyncSteps, floorSyncEmits, type FloorObserver } from './floors.js';
import { jobQueue } from './job-queue.js';
import { W1_FLOOR_RUNS } from './w1-sequential-steps.js';

const DEPTHS = [1, 10, 100, 1_000] as const;
const DEEPEST = 1_000;
/** Absolute, informational only. */
const TARGET_NS_PER_EVENT = 500;
/** Per event at depth 1,000 ≤ 1.5× its floor's cost per event. */
const TARGET_RATIO = 1.5;
/** Flat in depth: depth 1,000 ≤ 1.3× depth 1. */
const TARGET_FLAT = 1.3;
/** Calls per measured run. */
const LOG_CALLS = 50_000;
const SNAPSHOT_CALLS = 50_000;
const STEP_CALLS = 50_000;
/**
 * Rounds, each running every cell and both floors once. A cell runs 10-60 ms, and this VM stalls
 * for 5-40 ms now and then: 15 rounds keep one stall from moving a cell's median.
 */
const ROUNDS = 15;

interface Probe {
  label: string;
  eventsPerCall: number;
  calls: number;
  /** Which floor it is gated against. */
  floor: 'emit' | 'step';
  loop(ctx: WorkflowContext): Promise<void> | void;
}

const PROBES: readonly Probe[] = [
  {
    label: 'logger.info (1 log entry -> onLog)',
    eventsPerCall: 1,
    calls: LOG_CALLS,
    floor: 'emit',
    loop(ctx) {
      const logger = ctx.logger;
      for (let i = 0; i < LOG_CALLS; i += 1) logger.info('tick');
    },
  },
  {
    label: 'snapshotState() (1 event -> onEvent)',
    eventsPerCall: 1,
    calls: SNAPSHOT_CALLS,
    floor: 'emit',
    loop(ctx) {
      const wf = ctx.workflow;
      for (let i = 0; i < SNAPSHOT_CALLS; i += 1) wf.snapshotState();
    },
  },
  {
    label: 'ctx.step, empty body (2 events -> onEvent)',
    eventsPerCall: 2,
    calls: STEP_CALLS,
    floor: 'step',
    async loop(ctx) {
      const body = (): number => 1;
      for (let i = 0; i < STEP_CALLS; i += 1) await ctx.step('tick', body);
    },
  },
];

const delivered = { events: 0, logs: 0 };
const floorObserver: FloorObserver & { events: number } = {
  events: 0,
  onEvent() {
    this.events += 1;
  },
};
/** The gating floors, per run: the sync emit loop (one event per call) and the sync-body steps (two per step). */
const EMIT_FLOOR_CALLS = LOG_CALLS;
const emitFloor = (): number => floorSyncEmits(EMIT_FLOOR_CALLS, floorObserver);
const stepFloor = (): Promise<number> => floorScopedSyncSteps(STEP_CALLS, floorObserver);
const observer: WorkflowObserver = {
  onEvent() {
    delivered.events += 1;
  },
  onLog() {
    delivered.logs += 1;
  },
};

/**
 * Builds a chain of `depth` nested functional workflows (each spawns the next from its executor)
 * and runs `leaf` inside the deepest one. Each level first yields (`await null`) so the chain is
 * not one synchronous stack 1,000 levels deep.
 */
async function atDepth<T>(depth: number, leaf: (ctx: WorkflowContext) => Promise<T>): Promise<T> {
  const level = (n: number): Workflow<T> =>
    createWorkflow<T>(`level-${n}`, async (ctx) => {
      await null;
      if (n < depth) return ctx.spawnWorkflow(level(n + 1));
      let actual = 1;
      for (let w = ctx.workflow.parent; w !== null; w = w.parent) actual += 1;
      if (actual !== depth) throw new Error(`W3: expected depth ${depth}, got ${actual}`);
      return leaf(ctx);
    });
  const root = level(1);
  root.addObserver(observer);
  return root.run();
}

/** The deepest workflow of an open chain: it runs each job it is handed in its own executor, until closed. */
interface Leaf {
  run(job: (ctx: WorkflowContext) => Promise<void> | void): Promise<void>;
  close(): Promise<void>;
}

function openLeaf(depth: number): Leaf {
  const queue = jobQueue<WorkflowContext>();
  const running = atDepth(depth, (ctx) => queue.serve(ctx));
  return {
    run: (job) => queue.run(job),
    async close() {
      queue.close();
      await running;
    },
  };
}

/** Plain baseline: at the bottom of `depth` nested async calls, await an async fn that hands an event to a callback. */
async function plainAtDepth(depth: number, calls: number): Promise<number> {
  const listener = { count: 0, onEvent(_e: { type: string; timestamp: number }) { this.count += 1; } };
  const emit = async (i: number): Promise<void> => {
    listener.onEvent({ type: 'tick', timestamp: i });
  };
  const nest = async (n: number): Promise<number> => {
    await null;
    if (n < depth) return nest(n + 1);
    const m = await measure(async () => {
      for (let i = 0; i < calls; i += 1) await emit(i);
    });
    return m.medianNs / calls;
  };
  return nest(1);
}

/** Measured before any workflow has run, so Node's promise hooks for AsyncLocalStorage are still off. */
export async function baselineW3(): Promise<number> {
  return plainAtDepth(DEEPEST, LOG_CALLS);
}

export async function runW3(plainNs: number): Promise<void> {
  section('W3  emit from the deepest workflow of a nested chain (depth 1 = root), one observer on the root');
  const perEvent = new Map<Probe, number[]>();
  for (const probe of PROBES) perEvent.set(probe, []);

  const leaves = DEPTHS.map(openLeaf);
  const runs: Array<() => Promise<unknown> | unknown> = [];
  for (const leaf of leaves) for (const probe of PROBES) runs.push(() => leaf.run((ctx) => probe.loop(ctx)));
  runs.push(emitFloor, stepFloor, W1_FLOOR_RUNS.scoped, W1_FLOOR_RUNS.eventsOnly);
  const before = delivered.events + delivered.logs;
  const floorBefore = floorObserver.events;
  const measured = await measureInterleaved(runs, { runs: ROUNDS });
  await Promise.all(leaves.map((leaf) => leaf.close()));
  let expected = 0;
  // `runs` holds each depth's probes in order, then the four floors.
  for (let d = 0; d < DEPTHS.length; d += 1) {
    for (const [p, probe] of PROBES.entries()) {
      const m = measured[d * PROBES.length + p] as Measurement;
      expected += probe.calls * probe.eventsPerCall * (m.samples.length + DEFAULT_WARMUP);
      perEvent.get(probe)?.push(m.medianNs / (probe.calls * probe.eventsPerCall));
    }
  }
  const got = delivered.events + delivered.logs - before;
  if (got < expected) throw new Error(`W3: the probes delivered ${got} < ${expected}`);
  const floorRuns = ROUNDS + DEFAULT_WARMUP;
  // The W1 floors count on W1's own observer; this one sees the two gating floors.
  const floorExpected = floorRuns * (EMIT_FLOOR_CALLS + 2 * STEP_CALLS);
  if (floorObserver.events - floorBefore < floorExpected) throw new Error(`W3: the floors delivered ${floorObserver.events - floorBefore} < ${floorExpected}`);
  const perFloorEvent = (fromEnd: number, events: number): number => (measured[runs.length - fromEnd] as Measurement).medianNs / events;
  const emitFloorNs = perFloorEvent(4, EMIT_FLOOR_CALLS);
  const stepFloorNs = perFloorEvent(3, 2 * STEP_CALLS);
  const w1FloorNs = perFloorEvent(2, W1_FLOOR_RUNS.eventsPerRun);
  const eventsOnlyNs = perFloorEvent(1, W1_FLOOR_RUNS.eventsPerRun);

  const rows = PROBES.map((probe) => {
    const values = perEvent.get(probe) ?? [];
    const shallow = values[0] ?? Number.NaN;
    const deep = values[values.length - 1] ?? Number.NaN;
    const floorName = probe.floor === 'emit' ? 'sync emit floor' : 'sync-body step floor';
    const ratio = deep / (probe.floor === 'emit' ? emitFloorNs : stepFloorNs);
    const flat = deep / shallow;
    return [
      probe.label,
      ...values.map(fmtNs),
      `${fmtX(ratio)} (${probe.floor})`,
      recordRatio('W3', `${probe.label} at depth ${int(DEEPEST)} vs ${floorName}`, ratio, TARGET_RATIO),
      fmtX(deep / w1FloorNs),
      fmtX(flat),
      recordRatio('W3', `${probe.label} depth ${int(DEEPEST)} vs depth 1`, flat, TARGET_FLAT),
      `${verdict(deep, TARGET_NS_PER_EVENT)} ≤ ${TARGET_NS_PER_EVENT} ns`,
    ];
  });
  const floorRow = (label: string, ns: number, gating: string): string[] => [label, '-', '-', '-', fmtNs(ns), gating, '-', fmtX(ns / w1FloorNs), '-', '-', '-'];
  rows.push(floorRow('FLOOR emit: getStore() + 1 event object to an observer, sync loop', emitFloorNs, '1.00x (emit)'));
  rows.push(floorRow('FLOOR step: awaited step, sync body in its own ALS scope, start+end event', stepFloorNs, '1.00x (step)'));
  rows.push(floorRow('W1 floor per event (async body in its own ALS scope) (info)', w1FloorNs, '-'));
  rows.push(floorRow('events-only floor per event (one ALS.run for all steps) (info)', eventsOnlyNs, '-'));
  rows.push(floorRow('plain async (await fn -> callback, no ALS) (info)', plainNs, '-'));
  console.log(
    table(
      [
        'ns per event',
        ...DEPTHS.map((d) => `depth ${int(d)}`),
        `vs floor (≤ ${fmtX(TARGET_RATIO)})`,
        'status',
        'vs W1 floor (info)',
        `${int(DEEPEST)} vs 1 (≤ ${fmtX(TARGET_FLAT)})`,
        'status',
        'absolute (info)',
      ],
      rows,
      ['left', 'right', 'right', 'right', 'right', 'right', 'left', 'right', 'right', 'left', 'left'],
    ),
  );
  console.log(
    `  (median of ${ROUNDS} rounds after ${DEFAULT_WARMUP} warm-ups; ${int(LOG_CALLS)} logs / ${int(SNAPSHOT_CALLS)} snapshots / ` +
      `${int(STEP_CALLS)} steps per run, every cell and all floors interleaved round by round; "vs floor" at depth ${int(DEEPEST)},\n` +
      `   against the floor doing the same work: (emit) the sync loop's time per event, ${int(EMIT_FLOOR_CALLS)} calls per run; (step) half an\n` +
      `   awaited step whose sync body runs in its own AsyncLocalStorage.run and that emits a start and an end event, ${int(STEP_CALLS)} steps per run)`,
  );
}
