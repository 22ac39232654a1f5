import { describe, expect, it } from 'vitest';
import { createWorkflow, Step, Task, Workflow, type WorkflowContext } from 'groundswell';
import { keptBytesPerItem } from '../support/kept-heap.js';

const WARM_UP = 500;
const CHILDREN = 4_000;
const BATCHES = 3;
/**
 * Bytes one finished child (one step) may keep while its parent holds it: its Workflow, its node
 * and its step's node, their ids, its run's start and end events and outcome, its executor. It was
 * ~1.5-1.7 KB (a frozen config clone with a hidden class of its own, a logger made for every
 * functional child, a 17-slot list for one step, events with out-of-object fields); ~1.2 KB now.
 */
const MAX_BYTES_PER_CHILD = 1_350;

class StepChild extends Workflow<number> {
  @Step()
  async work(): Promise<number> {
    return 1;
  }

  override async run(): Promise<number> {
    return this.work();
  }
}

type Make = (i: number) => Workflow;

const functionalChild: Make = (i) => createWorkflow({ name: `child-${i}` }, async (ctx) => ctx.step('work', () => i));
const decoratedChild: Make = (i) => new StepChild(`child-${i}`);

/** Heap kept per child by a parent that spawned CHILDREN one after another (after a warm-up), bytes. */
async function heapPerChild(make: Make): Promise<number> {
  let perChild = Number.NaN;
  // Every child kept (retention above all batches), so the bytes are what one finished child costs.
  const root = createWorkflow<void>({ name: 'spawn-loop', retention: { maxChildrenPerNode: 20_000 } }, async (ctx) => {
    for (let i = 0; i < WARM_UP; i += 1) await ctx.spawnWorkflow(make(i));
    perChild = await keptBytesPerItem(CHILDREN, BATCHES, async () => {
      for (let i = 0; i < CHILDREN; i += 1) await ctx.spawnWorkflow(make(i));
    });
  });
  root.addObserver({ onEvent() {} });
  await root.run();
  return perChild;
}

describe('a parent spawning children in a loop', () => {
  it.each([
    ['functional children (ctx.step)', functionalChild],
    ['@Step subclass children', decoratedChild],
  ])('keeps a bounded heap per finished child: %s', async (_label, make) => {
    expect(await heapPerChild(make)).toBeLessThanOrEqual(MAX_BYTES_PER_CHILD);
    // Sized for a loaded 2-core machine: thousands of children and forced collections.
  }, 120_000);
});

// What a daemon loop keeps per child it spawned, past retention: each shape a user writes. The
// smallest of three late batches, so a collection that happens to run late cannot fake a leak.
// Batches of 10,000: what a batch keeps once (code compiled late on a busy machine, ~170 KB seen
// in full-suite runs) is under 20 B a child, while a leak grows with every child.
const LOOP_CHILDREN = 10_000;
const MAX_SLOPE_BYTES = 50;

/** A class workflow whose loop calls a @Task returning one child workflow per item. */
class TaskDaemon extends Workflow<void> {
  slope = Number.NaN;

  constructor() {
    super({ name: 'task-daemon', retention: { maxChildrenPerNode: 100 } });
  }

  @Task() async child(i: number): Promise<Workflow> {
    return functionalChild(i);
  }

  override async run(): Promise<void> {
    for (let i = 0; i < LOOP_CHILDREN; i += 1) await this.child(i);
    this.slope = await keptBytesPerItem(LOOP_CHILDREN, 3, async () => {
      for (let i = 0; i < LOOP_CHILDREN; i += 1) await this.child(i);
    });
  }
}

type Shape = (ctx: WorkflowContext, i: number) => Promise<unknown>;

const shapes: Array<[string, Shape]> = [
  ['a spawn directly', (ctx, i) => ctx.spawnWorkflow(functionalChild(i))],
  ['a spawn inside ctx.step', (ctx, i) => ctx.step('tick', () => ctx.spawnWorkflow(functionalChild(i)))],
];

describe('a daemon loop past retention', () => {
  it.each(shapes)('keeps no heap per finished child: %s', async (_label, shape) => {
    let slope = Number.NaN;
    const root = createWorkflow<void>({ name: 'daemon', retention: { maxChildrenPerNode: 100 } }, async (ctx) => {
      for (let i = 0; i < LOOP_CHILDREN; i += 1) await shape(ctx, i);
      slope = await keptBytesPerItem(LOOP_CHILDREN, 3, async () => {
        for (let i = 0; i < LOOP_CHILDREN; i += 1) await shape(ctx, i);
      });
    });
    root.addObserver({ onEvent() {} });
    await root.run();
    expect(slope).toBeLessThanOrEqual(MAX_SLOPE_BYTES);
  }, 120_000);

  it('keeps no heap per finished child: @Task children of a class workflow', async () => {
    const daemon = new TaskDaemon();
    daemon.addObserver({ onEvent() {} });
    await daemon.run();
    expect(daemon.slope).toBeLessThanOrEqual(MAX_SLOPE_BYTES);
  }, 120_000);
});
