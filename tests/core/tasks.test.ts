import { describe, expect, it } from 'vitest';
import {
  createWorkflow,
  MergedWorkflowError,
  Task,
  UsageError,
  Workflow,
  WorkflowError,
  type WorkflowConfig,
} from 'groundswell';
import { allNodes, failureOf, must } from '../support/core-helpers.js';
import { deferred } from '../support/deferred.js';
import { eventsOfType, record } from '../support/events.js';

type Kids = () => Workflow[];

/** A workflow whose run() is one task producing `kids()`; subclasses choose the task options. */
abstract class Spawner extends Workflow<Workflow[]> {
  constructor(
    name: string,
    protected readonly kids: Kids,
    config: Omit<WorkflowConfig, 'name'> = {},
  ) {
    super({ name, ...config });
  }
  abstract spawn(): Promise<Workflow[]>;
  override async run(): Promise<Workflow[]> {
    return this.spawn();
  }
}

class Concurrent extends Spawner {
  @Task({ concurrent: true }) async spawn(): Promise<Workflow[]> {
    return this.kids();
  }
}

class Sequential extends Spawner {
  @Task() async spawn(): Promise<Workflow[]> {
    return this.kids();
  }
}

class Merging extends Spawner {
  @Task({ concurrent: true, errorMergeStrategy: { enabled: true } }) async spawn(): Promise<Workflow[]> {
    return this.kids();
  }
}

class ShallowMerging extends Spawner {
  @Task({ concurrent: true, errorMergeStrategy: { enabled: true, maxMergeDepth: 0 } })
  async spawn(): Promise<Workflow[]> {
    return this.kids();
  }
}

class MergeOff extends Spawner {
  @Task({ concurrent: true, errorMergeStrategy: { enabled: false } }) async spawn(): Promise<Workflow[]> {
    return this.kids();
  }
}

const combined: unknown[][] = [];

class Combining extends Spawner {
  @Task({
    concurrent: true,
    errorMergeStrategy: {
      enabled: true,
      combine: (errors) => {
        combined.push([...errors]);
        return new AggregateError(errors, `combined ${errors.length} failures`);
      },
    },
  })
  async spawn(): Promise<Workflow[]> {
    return this.kids();
  }
}

class CombiningToWorkflowError extends Spawner {
  @Task({
    concurrent: true,
    errorMergeStrategy: {
      enabled: true,
      combine: (errors) => {
        const last = errors[errors.length - 1];
        return last instanceof Error ? last : new Error(String(last));
      },
    },
  })
  async spawn(): Promise<Workflow[]> {
    return this.kids();
  }
}

function ok(name: string, ran: string[] = []): Workflow<string> {
  return createWorkflow({ name }, (ctx) =>
    ctx.step(`${name}-step`, () => {
      ran.push(name);
      return name;
    }),
  );
}

function failing(name: string, before: Promise<unknown> = Promise.resolve()): Workflow<never> {
  return createWorkflow({ name }, (ctx) =>
    ctx.step(`${name}-step`, async () => {
      await before;
      throw new Error(`${name} failed`);
    }),
  );
}

describe('@Task', () => {
  it('attaches the returned workflows under a task node and runs them', async () => {
    const ran: string[] = [];
    const kids = [ok('k1', ran), ok('k2', ran)];
    const wf = new Concurrent('parent', () => kids);
    const rec = record(wf);
    await expect(wf.run()).resolves.toEqual(kids);

    const task = must(wf.node.children[0], 'task node');
    expect([task.kind, task.name, task.status]).toEqual(['task', 'spawn', 'completed']);
    expect(task.children.map((n) => n.name)).toEqual(['k1', 'k2']);
    expect(wf.children).toEqual(kids);
    expect(kids.every((k) => k.parent === wf && k.status === 'completed')).toBe(true);
    expect(ran.sort()).toEqual(['k1', 'k2']);
    expect(eventsOfType(rec.events, 'taskStart').map((e) => [e.name, e.concurrent])).toEqual([['spawn', true]]);
    expect(eventsOfType(rec.events, 'taskEnd').map((e) => [e.status, e.childIds])).toEqual([
      ['completed', kids.map((k) => k.id)],
    ]);
  });

  it('concurrent: throws the first error by default, after every sibling has settled', async () => {
    const gate = deferred();
    let slowFinished = false;
    const slow = createWorkflow({ name: 'slow' }, (ctx) =>
      ctx.step('slow-step', async () => {
        await gate.promise;
        slowFinished = true;
        return 'slow';
      }),
    );
    const fast = createWorkflow({ name: 'fast' }, (ctx) =>
      ctx.step('fast-step', () => {
        setImmediate(() => gate.resolve());
        throw new Error('fast failed');
      }),
    );
    const wf = new Concurrent('parent', () => [slow, fast]);
    const rec = record(wf);

    const outcome = await wf.run().then(
      () => ({ error: undefined, slowAtRejection: slow.status, finished: slowFinished }),
      (error: unknown) => ({ error, slowAtRejection: slow.status, finished: slowFinished }),
    );

    expect(outcome.error).toBeInstanceOf(WorkflowError);
    expect((outcome.error as WorkflowError).workflowId).toBe(fast.id);
    expect((outcome.error as WorkflowError).message).toContain('fast failed');
    expect(outcome.slowAtRejection).toBe('completed');
    expect(outcome.finished).toBe(true);
    expect(allNodes(wf.node).filter((n) => n.status === 'running')).toEqual([]);
    expect(wf.node.children[0]?.status).toBe('failed');
    expect(wf.status).toBe('failed');
    // One failure, one error event, although it passed through the task and the workflow.
    expect(eventsOfType(rec.events, 'error')).toHaveLength(1);
    expect(eventsOfType(rec.events, 'taskEnd').map((e) => e.status)).toEqual(['failed']);
  });

  it('concurrent: "first" means first in time, not first in the array', async () => {
    const firstFailed = deferred();
    const late = failing('late', firstFailed.promise);
    const early = createWorkflow({ name: 'early' }, (ctx) =>
      ctx.step('early-step', () => {
        setImmediate(() => firstFailed.resolve());
        throw new Error('early failed');
      }),
    );
    const wf = new Concurrent('parent', () => [late, early]);
    const error = await failureOf(wf.run());
    expect(error.workflowId).toBe(early.id);
    expect(late.status).toBe('failed');
  });

  it('sequential: runs children one after another and stops at the first failure', async () => {
    const ran: string[] = [];
    const never = ok('never', ran);
    const wf = new Sequential('parent', () => [ok('first', ran), failing('broken'), never]);
    const rec = record(wf);
    const error = await failureOf(wf.run());
    expect(error.message).toContain('broken failed');
    expect(ran).toEqual(['first']);
    expect(never.status).toBe('idle');
    expect(eventsOfType(rec.events, 'workflowStart').map((e) => e.name)).toEqual(['parent', 'first', 'broken']);
    expect(eventsOfType(rec.events, 'taskStart')[0]?.concurrent).toBe(false);
    expect(eventsOfType(rec.events, 'taskEnd').map((e) => e.status)).toEqual(['failed']);
    expect(allNodes(wf.node).filter((n) => n.status === 'running')).toEqual([]);
  });

  it('errorMergeStrategy on the task gives a MergedWorkflowError with every failure', async () => {
    const a = failing('a');
    const b = failing('b');
    const wf = new Merging('parent', () => [a, ok('fine'), b]);
    const rec = record(wf);
    const error = await failureOf(wf.run());
    expect(error).toBeInstanceOf(MergedWorkflowError);
    const merged = error as MergedWorkflowError;
    expect(merged.errors).toHaveLength(2);
    expect(merged.errors.map((e) => (e as WorkflowError).workflowId).sort()).toEqual([a.id, b.id].sort());
    expect(merged.message).toContain('a failed');
    expect(merged.message).toContain('b failed');
    expect(merged.workflowId).toBe(wf.id);
    // Two child failures plus the merged failure of the task: three distinct failures, three events.
    expect(eventsOfType(rec.events, 'error')).toHaveLength(3);
    expect(JSON.parse(JSON.stringify(merged)).errors).toHaveLength(2);
  });

  it('errorMergeStrategy in the workflow config is the default for its concurrent tasks', async () => {
    const wf = new Concurrent('parent', () => [failing('a'), failing('b')], {
      errorMergeStrategy: { enabled: true },
    });
    const error = await failureOf(wf.run());
    expect(error).toBeInstanceOf(MergedWorkflowError);
    expect((error as MergedWorkflowError).errors).toHaveLength(2);
  });

  it('a task option overrides the workflow config default', async () => {
    const wf = new MergeOff('parent', () => [failing('a'), failing('b')], {
      errorMergeStrategy: { enabled: true },
    });
    const error = await failureOf(wf.run());
    expect(error).not.toBeInstanceOf(MergedWorkflowError);
  });

  it('flattens nested merged errors up to maxMergeDepth', async () => {
    const inner = (name: string): Workflow => new Merging(name, () => [failing(`${name}.1`), failing(`${name}.2`)]);
    const deep = await failureOf(new Merging('top', () => [inner('x'), inner('y')]).run());
    expect((deep as MergedWorkflowError).errors).toHaveLength(4);
    const shallow = await failureOf(new ShallowMerging('top', () => [inner('x'), inner('y')]).run());
    expect((shallow as MergedWorkflowError).errors).toHaveLength(2);
    expect((shallow as MergedWorkflowError).errors.every((e) => e instanceof MergedWorkflowError)).toBe(true);
  });

  it('honours a custom combine, wrapping its result in a WorkflowError when it is not one', async () => {
    combined.length = 0;
    const a = failing('a');
    const b = failing('b');
    const wf = new Combining('parent', () => [a, b]);
    const error = await failureOf(wf.run());
    expect(combined).toHaveLength(1);
    expect(combined[0]).toHaveLength(2);
    expect(error.message).toBe('combined 2 failures');
    expect(error.cause).toBeInstanceOf(AggregateError);
    expect((error.cause as AggregateError).errors).toEqual(combined[0]);
    expect(error.workflowId).toBe(wf.id);
  });

  it('throws the combine result itself when it already is a WorkflowError', async () => {
    const gate = deferred();
    const a = failing('a');
    const b = failing('b', gate.promise);
    const wf = new CombiningToWorkflowError('parent', () => {
      setImmediate(() => gate.resolve());
      return [a, b];
    });
    const error = await failureOf(wf.run());
    expect(error.workflowId).toBe(b.id);
    expect(error.message).toContain('b failed');
  });

  it('fails with a message naming the task and the value when a task returns a number', async () => {
    class NumberTask extends Workflow<unknown> {
      // @ts-expect-error a task must return workflows; this simulates an untyped method
      @Task({ name: 'numbers' }) async produce(): Promise<number> {
        return 42;
      }
      override async run(): Promise<unknown> {
        return this.produce();
      }
    }
    const wf = new NumberTask('nt');
    const error = await failureOf(wf.run());
    expect(error.message).toContain('numbers');
    expect(error.message).toMatch(/got number/);
    expect(error.cause).toBeInstanceOf(UsageError);
    expect(wf.node.children[0]?.status).toBe('failed');
  });

  it('fails with a message naming the task and the bad item when an array holds a string', async () => {
    class MixedTask extends Workflow<unknown> {
      // @ts-expect-error a task must return workflows; this simulates an untyped method
      @Task({ name: 'mixed' }) async produce(): Promise<Array<Workflow | string>> {
        return [createWorkflow({ name: 'real' }, () => 1), 'not a workflow'];
      }
      override async run(): Promise<unknown> {
        return this.produce();
      }
    }
    const wf = new MixedTask('mt');
    const error = await failureOf(wf.run());
    expect(error.message).toContain('mixed');
    expect(error.message).toMatch(/array/);
    expect(error.message).toMatch(/string/);
    expect(wf.children).toEqual([]);
  });
});
