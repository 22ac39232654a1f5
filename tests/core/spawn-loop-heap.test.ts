import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createWorkflow, Step, Workflow } from 'groundswell';

// A forced collection without a command-line flag: the flag set now, `gc` read from a fresh context.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

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

/**
 * Heap kept per child by a parent that spawned CHILDREN one after another (after a warm-up), bytes.
 * Measured over three batches in the same parent and the smallest taken: whatever else the process
 * keeps meanwhile (compiled code, the test runner's own objects) only ever adds to a batch.
 */
async function heapPerChild(make: Make): Promise<number> {
  const batches: number[] = [];
  // Every child kept (retention above all batches), so the bytes are what one finished child costs.
  const root = createWorkflow<void>({ name: 'spawn-loop', retention: { maxChildrenPerNode: 20_000 } }, async (ctx) => {
    for (let i = 0; i < WARM_UP; i += 1) await ctx.spawnWorkflow(make(i));
    for (let batch = 0; batch < BATCHES; batch += 1) {
      gc();
      gc();
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < CHILDREN; i += 1) await ctx.spawnWorkflow(make(i));
      gc();
      gc();
      batches.push((process.memoryUsage().heapUsed - before) / CHILDREN);
    }
  });
  root.addObserver({ onEvent() {} });
  await root.run();
  return Math.min(...batches);
}

describe('a parent spawning children in a loop', () => {
  it.each([
    ['functional children (ctx.step)', functionalChild],
    ['@Step subclass children', decoratedChild],
  ])('keeps a bounded heap per finished child: %s', async (_label, make) => {
    expect(await heapPerChild(make)).toBeLessThanOrEqual(MAX_BYTES_PER_CHILD);
  });
});
