import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createWorkflow,
  GroundswellError,
  ObservedState,
  Step,
  Task,
  Workflow,
  WorkflowTreeDebugger,
  exportRun,
  type WorkflowNode,
} from 'groundswell';
import { allNodes } from '../support/core-helpers.js';
import { eventsOfType, record } from '../support/events.js';
import { HOSTILE_STATE, HOSTILE_THROWN } from './hostile-values.js';

/** Every node of the run has a final status: nothing is left `running`. */
function expectSettled(root: WorkflowNode): void {
  const running = allNodes(root).filter((n) => n.status === 'running');
  expect(running.map((n) => `${n.kind}:${n.name}`)).toEqual([]);
}

/** The run's rejection, asserting it is one of ours. */
async function failure(run: Promise<unknown>): Promise<GroundswellError> {
  const outcome = await run.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(GroundswellError);
  return outcome as GroundswellError;
}

let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

describe.each(HOSTILE_THROWN)('a run settles when user code throws $label', ({ make }) => {
  it('from a ctx.step body: run() rejects with a GroundswellError, one error event, no node running', async () => {
    const wf = createWorkflow({ name: 'wf' }, async (ctx) => {
      await ctx.step('ok', () => 1);
      await ctx.step('bad', () => {
        throw make();
      });
    });
    const rec = record(wf);
    const error = await failure(wf.run());
    expect(typeof error.message).toBe('string');
    expect(wf.status).toBe('failed');
    expectSettled(wf.node);
    expect(eventsOfType(rec.events, 'error')).toHaveLength(1);
    // The failure is printable and exportable.
    expect(new WorkflowTreeDebugger(wf).toTreeString()).toContain('bad');
    expect(() => JSON.stringify(exportRun(wf.node))).not.toThrow();
  });

  it('as a rejection from an async step', async () => {
    const wf = createWorkflow({ name: 'wf' }, async (ctx) => {
      await ctx.step('bad', async () => {
        await Promise.resolve();
        throw make();
      });
    });
    await failure(wf.run());
    expectSettled(wf.node);
  });

  it('from the workflow body itself (outside any step)', async () => {
    const wf = createWorkflow({ name: 'wf' }, () => {
      throw make();
    });
    await failure(wf.run());
    expect(wf.status).toBe('failed');
    expectSettled(wf.node);
  });

  it('from a class @Step and from a subclass run()', async () => {
    class Stepper extends Workflow {
      @Step()
      async bad(): Promise<void> {
        throw make();
      }
      override async run(): Promise<void> {
        await this.bad();
      }
    }
    const wf = new Stepper('stepper');
    await failure(wf.run());
    expectSettled(wf.node);

    class Thrower extends Workflow {
      override async run(): Promise<void> {
        throw make();
      }
    }
    const direct = new Thrower('thrower');
    await failure(direct.run());
    expect(direct.status).toBe('failed');
  });

  it('from a @Task body and from a child workflow of a concurrent task', async () => {
    class Parent extends Workflow {
      @Task({ concurrent: true })
      async fanOut(): Promise<Workflow[]> {
        return [
          createWorkflow({ name: 'fine' }, async (ctx) => ctx.step('s', () => 1)),
          createWorkflow({ name: 'broken' }, () => {
            throw make();
          }),
        ];
      }
      @Task()
      async badTask(): Promise<Workflow> {
        throw make();
      }
      override async run(): Promise<void> {
        await this.fanOut().catch(() => undefined);
        await this.badTask();
      }
    }
    const wf = new Parent('parent');
    await failure(wf.run());
    expectSettled(wf.node);
  });

  it('from a retry policy (retryOn)', async () => {
    const wf = createWorkflow({ name: 'wf' }, async (ctx) => {
      await ctx.step(
        'bad',
        () => {
          throw new Error('first');
        },
        {
          retry: {
            maxAttempts: 3,
            retryOn: () => {
              throw make();
            },
          },
        },
      );
    });
    await failure(wf.run());
    expectSettled(wf.node);
  });

  it('from an observer: one observerError, and the run completes', async () => {
    const wf = createWorkflow({ name: 'wf' }, async (ctx) => {
      await ctx.step('a', () => 1);
      await ctx.step('b', () => 2);
      return 'done';
    });
    const rec = record(wf);
    wf.addObserver({
      onEvent: () => {
        throw make();
      },
    });
    await expect(wf.run()).resolves.toBe('done');
    expect(eventsOfType(rec.events, 'observerError')).toHaveLength(rec.events.filter((e) => e.type !== 'observerError').length);
  });

  it('as an observer rejection: each is reported as an observerError, no unhandled rejection', async () => {
    const wf = createWorkflow({ name: 'wf' }, async (ctx) => {
      await ctx.step('a', () => 1);
      return 'done';
    });
    const rec = record(wf);
    wf.addObserver({
      onEvent: async (e) => {
        if (e.type === 'stepStart') throw make();
      },
    });
    await expect(wf.run()).resolves.toBe('done');
    // Rejections arrive a microtask later than the event that caused them.
    await new Promise((resolve) => setImmediate(resolve));
    expect(eventsOfType(rec.events, 'observerError').map((e) => e.callback)).toEqual(['onEvent']);
  });
});

describe.each(HOSTILE_STATE)('@ObservedState holding $label', ({ make }) => {
  class Stateful extends Workflow {
    @ObservedState() value: unknown = undefined;
    @ObservedState({ redact: true }) secret = 'hunter2';
    fail = false;

    @Step({ snapshotState: true })
    async keep(): Promise<void> {
      this.value = make();
    }

    @Step()
    async maybeFail(): Promise<void> {
      if (this.fail) throw new Error('step failed');
    }

    override async run(): Promise<string> {
      await this.keep();
      await this.maybeFail();
      return 'done';
    }
  }

  it('snapshots, exports and prints without throwing; the run completes', async () => {
    const wf = new Stateful('stateful');
    const rec = record(wf);
    await expect(wf.run()).resolves.toBe('done');
    expect(eventsOfType(rec.events, 'stateSnapshot')).toHaveLength(1);
    expect(() => JSON.stringify(exportRun(wf.node))).not.toThrow();
    expect(new WorkflowTreeDebugger(wf).toTreeString()).toContain('keep');
  });

  it('a failing step still gives a WorkflowError with the state, and an error event', async () => {
    const wf = new Stateful('stateful');
    wf.fail = true;
    const rec = record(wf);
    const error = await failure(wf.run());
    expect(eventsOfType(rec.events, 'error')).toHaveLength(1);
    expect(wf.status).toBe('failed');
    expect((error as { state?: Record<string, unknown> }).state?.secret).toBe('***');
  });
});

describe('deep and wide runs settle', () => {
  it('child workflows spawned inside steps 1,000 levels deep complete', async () => {
    const depth = 1_000;
    const level = (n: number): Workflow<number> =>
      createWorkflow({ name: `level-${n}` }, async (ctx) =>
        ctx.step(`descend-${n}`, () => (n === depth ? n : ctx.spawnWorkflow(level(n + 1)))),
      );
    const root = level(1);
    await expect(root.run()).resolves.toBe(depth);
    expectSettled(root.node);
  });

  it('the same nesting with synchronous step bodies and no await between levels completes', async () => {
    const depth = 1_000;
    class Level extends Workflow<number> {
      constructor(private readonly n: number) {
        super(`level-${n}`);
      }
      @Step()
      descend(): Promise<number> {
        // No await between levels: the next level starts inside this call.
        return this.n === depth ? Promise.resolve(this.n) : new Level(this.n + 1).run();
      }
      override run(): Promise<number> {
        return this.descend();
      }
    }
    const root = new Level(1);
    await expect(root.run()).resolves.toBe(depth);
    expectSettled(root.node);
  });

  it('a failed fan-out of spawned children leaves none running when run() settles', async () => {
    const root = createWorkflow({ name: 'root' }, async (ctx) => {
      await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          ctx.spawnWorkflow(
            createWorkflow({ name: `child-${i}` }, async (c) => {
              await c.step('work', async () => {
                for (let t = 0; t < (i % 5) + 1; t += 1) await new Promise((r) => setImmediate(r));
                if (i === 3) throw new Error('child 3 failed');
              });
            }),
          ),
        ),
      );
    });
    await failure(root.run());
    expectSettled(root.node);
    expect(root.children.filter((c) => c.status === 'completed')).toHaveLength(199);
  });

  it('a parent spawning children in a loop keeps its child lists bounded by retention', async () => {
    const root = createWorkflow({ name: 'root', retention: { maxChildrenPerNode: 100 } }, async (ctx) => {
      for (let i = 0; i < 2_000; i += 1) {
        await ctx.spawnWorkflow(createWorkflow({ name: `c${i}` }, async (c) => c.step('s', () => i)));
      }
    });
    await root.run();
    // 100 kept plus at most one batch of slack in the node tree; the workflow's own list forgets
    // pruned children one batch later.
    expect(root.node.children.length).toBeLessThanOrEqual(125);
    expect(root.children.length).toBeLessThanOrEqual(150);
    expect(root.node.dropped.children).toBeGreaterThanOrEqual(2_000 - 125);
    // The newest children are the ones kept.
    expect(root.children.at(-1)?.name).toBe('c1999');
  });
});

describe('an @ObservedState field replaced by a throwing getter', () => {
  it('is snapshotted as a marker and the run completes', async () => {
    class Getter extends Workflow {
      @ObservedState() broken = 'fine';

      constructor() {
        super('getter');
        Object.defineProperty(this, 'broken', {
          get() {
            throw new Error('getter exploded');
          },
        });
      }

      @Step({ snapshotState: true })
      async work(): Promise<void> {}

      override async run(): Promise<string> {
        await this.work();
        return 'done';
      }
    }
    const wf = new Getter();
    const rec = record(wf);
    await expect(wf.run()).resolves.toBe('done');
    const [snapshot] = eventsOfType(rec.events, 'stateSnapshot');
    expect(snapshot?.state.broken).toBe('[Unserializable: getter exploded]');
  });
});

describe('retry policies that give impossible delays', () => {
  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['2^31 ms', 2 ** 31],
    ['a negative number', -5],
    ['a string', '10'],
  ])('a backoff function returning %s fails the step with a UsageError naming backoffMs', async (_label, delay) => {
    let attempts = 0;
    const wf = createWorkflow({ name: 'wf' }, async (ctx) => {
      await ctx.step(
        'flaky',
        () => {
          attempts += 1;
          throw new Error('flaky failed');
        },
        { retry: { maxAttempts: 3, backoffMs: () => delay as number } },
      );
    });
    const error = await failure(wf.run());
    expect(attempts).toBe(1);
    expect(error.message).toContain('retry.backoffMs');
    expectSettled(wf.node);
  });
});

describe('logger data that cannot be serialised', () => {
  it.each(HOSTILE_STATE.map((v) => [v.label, v] as const))('%s is stored as JSON-safe data and the run completes', async (_label, value) => {
    const wf = createWorkflow({ name: 'wf' }, async (ctx) => {
      await ctx.step('log', () => ctx.logger.info('hostile data', { value: value.make() }));
      return 'done';
    });
    const rec = record(wf);
    await expect(wf.run()).resolves.toBe('done');
    expect(rec.logs).toHaveLength(1);
    expect(() => JSON.stringify(rec.logs[0])).not.toThrow();
  });
});
