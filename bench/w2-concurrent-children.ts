/**
 * W2: one root runs N child workflows concurrently, 10 `@Step`s each.
 * Root as a subclass with `@Task({ concurrent: true })`, and as a functional root using
 * `ctx.spawnWorkflow` in `Promise.all`; the latter also at several N to show linear growth.
 */
import { createWorkflow, Step, Task, Workflow, type WorkflowObserver } from 'groundswell';
import {
  DEFAULT_WARMUP,
  fixed2,
  fmtMs,
  fmtNs,
  fmtRatio,
  int,
  measure,
  section,
  table,
  verdict,
  type Measurement,
} from './harness.js';

const CHILDREN = 1_000;
const STEPS_PER_CHILD = 10;
const SCALES = [250, 500, 1_000, 2_000] as const;
const TARGET_MS = 25;
const SCALE_RUNS = 7;

class StepChild extends Workflow<number> {
  private count = 0;

  @Step()
  async work(): Promise<number> {
    return ++this.count;
  }

  override async run(): Promise<number> {
    for (let i = 0; i < STEPS_PER_CHILD; i += 1) await this.work();
    return this.count;
  }
}

class TaskRoot extends Workflow<void> {
  constructor(private readonly childCount: number) {
    super('task-root');
  }

  @Task({ concurrent: true })
  async spawnChildren(): Promise<StepChild[]> {
    return Array.from({ length: this.childCount }, (_, i) => new StepChild(`child-${i}`));
  }

  override async run(): Promise<void> {
    const children = await this.spawnChildren();
    check(children);
  }
}

function spawnRoot(childCount: number): Workflow<void> {
  return createWorkflow<void>('spawn-root', async (ctx) => {
    const children = Array.from({ length: childCount }, (_, i) => new StepChild(`child-${i}`));
    await Promise.all(children.map((child) => ctx.spawnWorkflow(child)));
    check(children);
  });
}

function check(children: readonly StepChild[]): void {
  for (const child of children) {
    if (child.status !== 'completed') throw new Error(`W2: child ${child.name} ended ${child.status}`);
  }
}

const observer: WorkflowObserver = {
  onEvent() {
    events += 1;
  },
};
let events = 0;

async function runRoot(root: Workflow<void>): Promise<void> {
  root.addObserver(observer);
  await root.run();
}

/** The same shape without groundswell: N concurrent async functions, each awaiting 10 async calls. */
async function plainConcurrent(childCount: number): Promise<void> {
  const child = async (): Promise<number> => {
    let count = 0;
    const work = async (): Promise<number> => ++count;
    for (let i = 0; i < STEPS_PER_CHILD; i += 1) await work();
    return count;
  };
  await Promise.all(Array.from({ length: childCount }, () => child()));
}

export interface W2Baseline {
  main: Measurement;
  /** Per entry of SCALES. */
  scales: Measurement[];
}

/** Measured before any workflow has run, so Node's promise hooks for AsyncLocalStorage are still off. */
export async function baselineW2(): Promise<W2Baseline> {
  const main = await measure(() => plainConcurrent(CHILDREN));
  const scales: Measurement[] = [];
  for (const n of SCALES) scales.push(await measure(() => plainConcurrent(n), { runs: SCALE_RUNS }));
  return { main, scales };
}

export async function runW2(baseline: W2Baseline): Promise<void> {
  section(`W2  root running ${int(CHILDREN)} child workflows concurrently, ${STEPS_PER_CHILD} @Step each (one root observer)`);

  const plain = baseline.main;
  events = 0;
  const task = await measure(() => runRoot(new TaskRoot(CHILDREN)));
  const eventsPerRun = events / (task.samples.length + DEFAULT_WARMUP);
  const spawn = await measure(() => runRoot(spawnRoot(CHILDREN)));

  const targetCell = `≤ ${TARGET_MS} ms`;
  console.log(
    table(
      ['variant', 'median', 'min', 'max', 'vs plain', 'target', 'status'],
      [
        ['plain async baseline', fmtMs(plain.medianNs), fmtMs(plain.minNs), fmtMs(plain.maxNs), '1.0x', '-', '-'],
        [
          '@Task({ concurrent: true }) root',
          fmtMs(task.medianNs),
          fmtMs(task.minNs),
          fmtMs(task.maxNs),
          fmtRatio(task.medianNs, plain.medianNs),
          targetCell,
          verdict(task.medianNs / 1e6, TARGET_MS),
        ],
        [
          'functional root, ctx.spawnWorkflow + Promise.all',
          fmtMs(spawn.medianNs),
          fmtMs(spawn.minNs),
          fmtMs(spawn.maxNs),
          fmtRatio(spawn.medianNs, plain.medianNs),
          targetCell,
          verdict(spawn.medianNs / 1e6, TARGET_MS),
        ],
      ],
      ['left', 'right', 'right', 'right', 'right', 'right', 'left'],
    ),
  );
  console.log(
    `  (median of ${task.samples.length} runs after ${DEFAULT_WARMUP} warm-ups; total of root.run() incl. creating the children;\n` +
      `   ~${int(eventsPerRun)} events/run reached the observer; the same StepChild class under both roots)`,
  );

  console.log('\n  growth, functional root with ctx.spawnWorkflow:');
  const rows: string[][] = [];
  let first: number | undefined;
  for (const [index, n] of SCALES.entries()) {
    const m = await measure(() => runRoot(spawnRoot(n)), { runs: SCALE_RUNS });
    const plainN = baseline.scales[index] as Measurement;
    const perChild = m.medianNs / n;
    first ??= perChild;
    rows.push([
      int(n),
      fmtMs(m.medianNs),
      fmtNs(perChild),
      fmtNs(m.minNs / n),
      `${fixed2(perChild / first)}x`,
      fmtNs(plainN.medianNs / n),
      fmtRatio(m.medianNs, plainN.medianNs),
    ]);
  }
  console.log(
    table(['children', 'median total', 'per child', 'min per child', `per child vs ${int(SCALES[0])}`, 'plain per child', 'vs plain'], rows),
  );
  console.log(`  (median of ${SCALE_RUNS} runs each after ${DEFAULT_WARMUP} warm-ups; flat "per child" = linear growth)`);
}
