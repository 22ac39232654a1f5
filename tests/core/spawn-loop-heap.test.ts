import { describe, expect, it } from 'vitest';
import { createWorkflow, Step, Workflow } from 'groundswell';
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
  });
});
