import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  outcomeOf,
  resultOf,
  Step,
  Task,
  UsageError,
  Workflow,
  WorkflowCancelledError,
  WorkflowError,
  type ChildOutcome,
} from 'groundswell';
import { flush } from '../support/core-helpers.js';
import { childNamed } from '../support/decorators-helpers.js';
import { deferred } from '../support/deferred.js';
import { eventsOfType, record } from '../support/events.js';
import { Gates } from '../support/gates.js';

/** A child whose run() resolves to its index times ten once its gate opens (or fails, if told). */
class Job extends Workflow<number> {
  constructor(
    readonly index: number,
    private readonly gates: Gates,
  ) {
    super(`job-${index}`);
  }
  override async run(): Promise<number> {
    return this.gates.body(this.index);
  }
}

class Square extends Workflow<number> {
  constructor(private readonly n: number) {
    super(`square-${n}`);
  }
  @Step() async compute(): Promise<number> {
    if (this.n < 0) throw new Error(`cannot square ${this.n}`);
    return this.n * this.n;
  }
  override async run(): Promise<number> {
    return this.compute();
  }
}

class Label extends Workflow<string> {
  override async run(): Promise<string> {
    return `label of ${this.name}`;
  }
}

function jobs(gates: Gates): Job[] {
  return Array.from({ length: gates.count }, (_, index) => new Job(index, gates));
}

async function settled<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

describe('@Task: typed child results', () => {
  it('resultOf gives each child’s run() value, typed from the child class', async () => {
    class Squares extends Workflow<number[]> {
      @Task({ concurrent: true }) async squares(): Promise<Square[]> {
        return [1, 2, 3].map((n) => new Square(n));
      }
      @Task() async label(): Promise<Label> {
        return new Label('only');
      }
      override async run(): Promise<number[]> {
        const children = await this.squares();
        expectTypeOf(children).toEqualTypeOf<Square[]>();
        const values = children.map(resultOf);
        expectTypeOf(values).toEqualTypeOf<number[]>();
        const label = resultOf(await this.label());
        expectTypeOf(label).toEqualTypeOf<string>();
        return [...values, label.length];
      }
    }
    await expect(new Squares('squares').run()).resolves.toEqual([1, 4, 9, 'label of only'.length]);
  });
});

describe("@Task({ settle: 'all' })", () => {
  class Mixed extends Workflow<number[]> {
    outcomes: Array<ChildOutcome<Square>> = [];
    @Task({ concurrent: true, settle: 'all' }) async squares(): Promise<Square[]> {
      return [2, -1, 3].map((n) => new Square(n));
    }
    override async run(): Promise<number[]> {
      this.outcomes = (await this.squares()).map(outcomeOf);
      return this.outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    }
  }

  it('keeps the other children’s values when one fails; the failure shows on the child, not the task', async () => {
    const wf = new Mixed('mixed');
    const events = record(wf).events;
    await expect(wf.run()).resolves.toEqual([4, 9]);

    expect(wf.outcomes.map((o) => [o.status, o.workflow.name])).toEqual([
      ['fulfilled', 'square-2'],
      ['rejected', 'square--1'],
      ['fulfilled', 'square-3'],
    ]);
    const failed = wf.outcomes[1];
    expect(failed?.status === 'rejected' && failed.error).toBeInstanceOf(WorkflowError);
    expect(failed?.status === 'rejected' && failed.error.message).toContain('cannot square -1');

    const task = childNamed(wf.node, 'squares');
    expect(task.status).toBe('completed');
    expect(childNamed(task, 'square--1').status).toBe('failed');
    expect(wf.status).toBe('completed');
    expect(eventsOfType(events, 'taskEnd').map((e) => e.status)).toEqual(['completed']);
    const errorNodes = eventsOfType(events, 'error').map((e) => e.nodeId);
    expect(errorNodes).toEqual([childNamed(childNamed(task, 'square--1'), 'compute').id]);
  });

  it('runs every child in turn when not concurrent, past a failure', async () => {
    const gates = new Gates(3, new Set([0]));
    gates.releaseAll();
    class Sequential extends Workflow {
      @Task({ settle: 'all' }) async run3(): Promise<Job[]> {
        return jobs(gates);
      }
    }
    const children = await new Sequential('seq').run3();
    expect(children.map((c) => outcomeOf(c).status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(gates.maxInFlight).toBe(1);
    expect(gates.started).toEqual([0, 1, 2]);
  });

  it('resultOf on a failed child throws that child’s error', async () => {
    const wf = new Mixed('mixed');
    await wf.run();
    const failed = wf.outcomes[1];
    if (failed?.status !== 'rejected') throw new Error('expected a failed child');
    expect(() => resultOf(failed.workflow)).toThrow(failed.error);
  });
});

describe('@Task({ concurrent: true, concurrency })', () => {
  it('never runs more than `concurrency` children at once and starts them in order', async () => {
    const gates = new Gates(7);
    class Limited extends Workflow {
      @Task({ concurrent: true, concurrency: 2 }) async spawn(): Promise<Job[]> {
        return jobs(gates);
      }
    }
    const running = new Limited('limited').spawn();
    await gates.startOf(1);
    for (const [released, next] of [[1, 2], [0, 3], [3, 4]] as const) {
      expect(gates.inFlight).toBe(2);
      gates.release(released);
      await gates.startOf(next);
    }
    gates.releaseAll();
    const children = await running;
    expect(children.map(resultOf)).toEqual([0, 10, 20, 30, 40, 50, 60]);
    expect(gates.started).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(gates.maxInFlight).toBe(2);
  });

  it('by default a failure fails the task as before, and the queued children never start', async () => {
    const gates = new Gates(5, new Set([0]));
    const children = jobs(gates);
    class Failing extends Workflow {
      @Task({ concurrent: true, concurrency: 2 }) async spawn(): Promise<Job[]> {
        return children;
      }
    }
    const wf = new Failing('failing');
    const running = settled(wf.spawn());
    await gates.startOf(1);
    gates.release(0);
    // Job 0 has failed before job 1 frees its slot: nothing further may start.
    await flush();
    gates.releaseAll();
    const { error } = await running;
    expect(error).toBeInstanceOf(WorkflowError);
    expect((error as WorkflowError).message).toContain('job 0 failed');
    expect((error as WorkflowError).workflowId).toBe(children[0]?.id);
    expect(children.map((c) => c.status)).toEqual(['failed', 'completed', 'idle', 'idle', 'idle']);
    expect(childNamed(wf.node, 'spawn').status).toBe('failed');
  });

  it('1,000 children with concurrency 8 all complete', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    class Counted extends Workflow<number> {
      constructor(private readonly n: number) {
        super(`n${n}`);
      }
      @Step() async work(): Promise<number> {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await Promise.resolve();
        inFlight -= 1;
        return this.n;
      }
      override async run(): Promise<number> {
        return this.work();
      }
    }
    class Thousand extends Workflow<number> {
      @Task({ concurrent: true, concurrency: 8 }) async spawn(): Promise<Counted[]> {
        return Array.from({ length: 1_000 }, (_, n) => new Counted(n));
      }
      override async run(): Promise<number> {
        return (await this.spawn()).map(resultOf).reduce((a, b) => a + b, 0);
      }
    }
    await expect(new Thousand('thousand').run()).resolves.toBe((999 * 1_000) / 2);
    expect(maxInFlight).toBe(8);
  });
});

describe('cancelling a @Task fan-out', () => {
  it("settle: 'all': the task resolves with the children; queued ones are rejected as cancelled before they started", async () => {
    const gates = new Gates(5);
    const children = jobs(gates);
    class Cancelled extends Workflow {
      @Task({ concurrent: true, concurrency: 2, settle: 'all' }) async spawn(): Promise<Job[]> {
        return children;
      }
      override async run(): Promise<void> {
        await this.spawn();
      }
    }
    const wf = new Cancelled('cancelled');
    const events = record(wf).events;
    const task = settled(wf.spawn());
    await gates.startOf(1);
    wf.cancel('stop now');
    gates.releaseAll();
    const { value } = await task;
    expect(value).toBe(children);
    expect(children.map((c) => outcomeOf(c).status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected', 'rejected']);
    expect(children.map((c) => c.status)).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled', 'cancelled']);
    const queued = children.slice(2).map((c) => outcomeOf(c));
    for (const outcome of queued) {
      expect(outcome.status === 'rejected' && outcome.error).toBeInstanceOf(WorkflowCancelledError);
      expect(outcome.status === 'rejected' && outcome.error.message).toMatch(/was cancelled before it started \(stop now\)/);
    }
    expect(gates.started).toEqual([0, 1]);
    expect(eventsOfType(events, 'workflowStart').map((e) => e.name)).toEqual(['job-0', 'job-1']);
    expect(childNamed(wf.node, 'spawn').status).toBe('cancelled');
    // The workflow itself stays cancelled: its next run is refused.
    await expect(wf.run()).rejects.toBeInstanceOf(WorkflowCancelledError);
  });

  it("settle: 'all': children returned after the cancel never start and end cancelled too", async () => {
    const gates = new Gates(3);
    const children = jobs(gates);
    const bodyWaits = deferred();
    class Late extends Workflow {
      @Task({ concurrent: true, settle: 'all' }) async spawn(): Promise<Job[]> {
        await bodyWaits.promise;
        return children;
      }
    }
    const wf = new Late('late');
    const task = settled(wf.spawn());
    wf.cancel('too late');
    bodyWaits.resolve();
    expect((await task).value).toBe(children);
    expect(gates.started).toEqual([]);
    expect(children.map((c) => c.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    for (const outcome of children.map(outcomeOf)) {
      expect(outcome.status === 'rejected' && outcome.error).toBeInstanceOf(WorkflowCancelledError);
    }
  });

  it('by default: the task rejects with WorkflowCancelledError and starts nothing more', async () => {
    const gates = new Gates(4);
    const children = jobs(gates);
    class Cancelled extends Workflow {
      @Task({ concurrent: true, concurrency: 1 }) async spawn(): Promise<Job[]> {
        return children;
      }
    }
    const wf = new Cancelled('cancelled');
    const task = settled(wf.spawn());
    await gates.startOf(0);
    wf.cancel();
    gates.releaseAll();
    const { error } = await task;
    expect(error).toBeInstanceOf(WorkflowCancelledError);
    expect(gates.started).toEqual([0]);
    expect(children.map((c) => c.status)).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled']);
  });
});

describe('@Task fan-out options are validated at class definition', () => {
  type TaskOptions = Parameters<typeof Task>[0];

  function refusal(options: unknown): string {
    try {
      class Fan extends Workflow {
        @Task(options as TaskOptions) async spawn(): Promise<Workflow[]> {
          return [];
        }
      }
      void Fan;
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      return (error as UsageError).message;
    }
    throw new Error('the class was defined without a UsageError');
  }

  it.each([0, -1, Number.NaN, 1.5, Number.POSITIVE_INFINITY, '2'])('concurrency %s', (concurrency) => {
    expect(refusal({ concurrent: true, concurrency })).toMatch(/^@Task: options\.concurrency must be a positive integer, got /);
  });

  it('concurrency without concurrent: true', () => {
    expect(refusal({ concurrency: 4 })).toBe(
      '@Task: options.concurrency needs concurrent: true (without it the children run one at a time).',
    );
    expect(refusal({ name: 'fan', concurrent: false, concurrency: 4 })).toMatch(/^@Task "fan": options\.concurrency needs concurrent: true/);
  });

  it("an unknown settle mode, and errorMergeStrategy with settle: 'all'", () => {
    expect(refusal({ settle: 'some' })).toBe('@Task: options.settle must be one of: throw, all, got "some".');
    expect(refusal({ concurrent: true, settle: 'all', errorMergeStrategy: { enabled: true } })).toMatch(
      /options\.errorMergeStrategy has no effect with settle: "all"/,
    );
  });

  it('refuses the wrong types at compile time too', () => {
    const typed = (options: TaskOptions): TaskOptions => options;
    // @ts-expect-error -- concurrency is a number
    expect(() => typed({ concurrent: true, concurrency: '4' })).not.toThrow();
    // @ts-expect-error -- settle is 'throw' or 'all'
    expect(() => typed({ settle: 'any' })).not.toThrow();
  });
});
