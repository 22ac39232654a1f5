import { describe, expect, it } from 'vitest';
import { MergedWorkflowError, Step, Task, UsageError, Workflow, WorkflowError } from 'groundswell';
import { caught, childNamed } from '../support/decorators-helpers.js';
import { deferred } from '../support/deferred.js';
import { eventsOfType, record } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';

type LeafBody = (self: Leaf) => Promise<void> | void;

/** A child workflow whose run() body is supplied by the test. */
class Leaf extends Workflow<string> {
  constructor(
    name: string,
    private readonly body: LeafBody = () => {},
    parent?: Workflow,
  ) {
    super(name, parent);
  }
  override async run(): Promise<string> {
    await this.body(this);
    return `${this.name} done`;
  }
}

/** Deliberately mistyped values, to check the runtime guard behind @Task's types. */
function pretendWorkflow(value: unknown): Workflow {
  return value as Workflow;
}

async function yieldTicks(count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) await Promise.resolve();
}

describe('@Task() attaches returned workflows', () => {
  it('attaches a single returned workflow under a task node named after the method', async () => {
    const leaf = new Leaf('only');
    class Parent extends Workflow {
      @Task() async spawnOne(): Promise<Leaf> {
        return leaf;
      }
    }
    const wf = new Parent();
    const result = await wf.spawnOne();
    expect(result).toBe(leaf);
    expect(result).toBeInstanceOf(Workflow);
    expect(result).toBeInstanceOf(Leaf);

    const task = childNamed(wf.node, 'spawnOne');
    expect(task.kind).toBe('task');
    expect(task.status).toBe('completed');
    expect(task.children).toEqual([leaf.node]);
    expect(leaf.node.parent).toBe(task);
    expect(wf.children).toEqual([leaf]);
    expect(leaf.parent).toBe(wf);
    expect(leaf.root).toBe(wf);
    expect(leaf.isDescendantOf(wf)).toBe(true);
    expect(leaf.status).toBe('completed');
  });

  it('attaches an array of workflows in order and resolves to that array once all have run', async () => {
    class Parent extends Workflow {
      @Task() async spawnMany(): Promise<Leaf[]> {
        return [new Leaf('a'), new Leaf('b'), new Leaf('c')];
      }
    }
    const wf = new Parent();
    const result = await wf.spawnMany();
    expect(result.map((child) => child.name)).toEqual(['a', 'b', 'c']);
    for (const child of result) {
      expect(child).toBeInstanceOf(Workflow);
      expect(child.parent).toBe(wf);
      expect(child.status).toBe('completed');
    }
    expect(wf.children).toEqual(result);
    const task = childNamed(wf.node, 'spawnMany');
    expect(task.children.map((node) => node.id)).toEqual(result.map((child) => child.id));
    expect(task.children.map((node) => node.kind)).toEqual(['workflow', 'workflow', 'workflow']);
  });

  it('accepts children already constructed with the workflow as parent, without attaching twice', async () => {
    class Parent extends Workflow {
      @Task() async spawn(): Promise<Leaf[]> {
        return [new Leaf('x', undefined, this), new Leaf('y', undefined, this)];
      }
    }
    const wf = new Parent();
    const events = record(wf).events;
    const [x, y] = await wf.spawn();
    const task = childNamed(wf.node, 'spawn');
    expect(task.children.map((node) => node.name)).toEqual(['x', 'y']);
    expect(wf.children).toHaveLength(2);
    expect(eventsOfType(events, 'childAttached').map((e) => e.childId)).toEqual([x?.id, y?.id]);
  });

  it('mounts the child nodes and their steps under the task node in the tree', async () => {
    class Child extends Workflow {
      @Step() async work(): Promise<void> {}
      override async run(): Promise<void> {
        await this.work();
      }
    }
    class Parent extends Workflow {
      @Task() async spawn(): Promise<Child> {
        return new Child('child');
      }
      override async run(): Promise<void> {
        await this.spawn();
      }
    }
    const wf = new Parent();
    await wf.run();
    const task = childNamed(wf.node, 'spawn');
    const childNode = childNamed(task, 'child');
    expect(childNode.kind).toBe('workflow');
    expect(childNamed(childNode, 'work').kind).toBe('step');
    expect(JSON.parse(JSON.stringify(wf.toJSON()))).toMatchObject({
      name: 'Parent',
      children: [{ kind: 'task', name: 'spawn', children: [{ kind: 'workflow', name: 'child' }] }],
    });
  });

  it('uses the `name` option for the node and events', async () => {
    class Parent extends Workflow {
      @Task({ name: 'fan-out' }) async spawn(): Promise<Leaf> {
        return new Leaf('l');
      }
    }
    const wf = new Parent();
    const events = record(wf).events;
    await wf.spawn();
    expect(wf.node.children.map((node) => node.name)).toEqual(['fan-out']);
    expect(eventsOfType(events, 'taskStart').map((e) => e.name)).toEqual(['fan-out']);
    expect(eventsOfType(events, 'taskEnd').map((e) => e.name)).toEqual(['fan-out']);
  });

  it('passes arguments through and binds `this` to the instance', async () => {
    let self: unknown;
    class Parent extends Workflow {
      @Task() async spawn(count: number, prefix: string): Promise<Leaf[]> {
        self = this;
        return Array.from({ length: count }, (_, i) => new Leaf(`${prefix}${i}`));
      }
    }
    const wf = new Parent();
    const result = await wf.spawn(2, 'w');
    expect(self).toBe(wf);
    expect(result.map((child) => child.name)).toEqual(['w0', 'w1']);
  });

  it('nests a task called from a step under that step', async () => {
    class Parent extends Workflow {
      @Step() async prepare(): Promise<void> {
        await this.spawn();
      }
      @Task() async spawn(): Promise<Leaf> {
        return new Leaf('inner');
      }
    }
    const wf = new Parent();
    await wf.prepare();
    const step = childNamed(wf.node, 'prepare');
    const task = childNamed(step, 'spawn');
    expect(task.kind).toBe('task');
    expect(childNamed(task, 'inner').kind).toBe('workflow');
  });
});

describe('@Task() runs the children', () => {
  it('runs them one after another by default', async () => {
    const trace: string[] = [];
    const body: LeafBody = async (self) => {
      trace.push(`start:${self.name}`);
      await yieldTicks(3);
      trace.push(`end:${self.name}`);
    };
    class Parent extends Workflow {
      @Task() async spawn(): Promise<Leaf[]> {
        return [new Leaf('a', body), new Leaf('b', body)];
      }
    }
    const wf = new Parent();
    const events = record(wf).events;
    await wf.spawn();
    expect(trace).toEqual(['start:a', 'end:a', 'start:b', 'end:b']);
    expect(eventsOfType(events, 'taskStart')).toEqual([expect.objectContaining({ concurrent: false })]);
  });

  it('runs them at the same time with concurrent: true', async () => {
    const trace: string[] = [];
    const bothStarted = deferred();
    let started = 0;
    const body: LeafBody = async (self) => {
      trace.push(`start:${self.name}`);
      started += 1;
      if (started === 2) bothStarted.resolve();
      // Run one after another, the first child would wait here for ever: give up after a
      // generous number of microtask turns (no timers), so the failure is quick and explicit.
      const notConcurrent = yieldTicks(100).then(() => {
        throw new Error(`${self.name}: its sibling never started, the children did not run concurrently`);
      });
      await Promise.race([bothStarted.promise, notConcurrent]);
      trace.push(`end:${self.name}`);
    };
    class Parent extends Workflow {
      @Task({ concurrent: true }) async spawn(): Promise<Leaf[]> {
        return [new Leaf('a', body), new Leaf('b', body)];
      }
    }
    const wf = new Parent();
    const events = record(wf).events;
    const [a, b] = await wf.spawn();
    expect(trace.slice(0, 2).sort()).toEqual(['start:a', 'start:b']);
    expect(trace.slice(2).sort()).toEqual(['end:a', 'end:b']);
    expect(a?.status).toBe('completed');
    expect(b?.status).toBe('completed');
    expect(eventsOfType(events, 'taskStart')).toEqual([expect.objectContaining({ concurrent: true })]);
  });

  it('settles only after every child has run', async () => {
    const gate = deferred();
    class Parent extends Workflow {
      @Task({ concurrent: true }) async spawn(): Promise<Leaf[]> {
        return [new Leaf('fast'), new Leaf('slow', () => gate.promise)];
      }
    }
    const wf = new Parent();
    let settled = false;
    const pending = wf.spawn().then((children) => {
      settled = true;
      return children;
    });
    await yieldTicks(20);
    expect(settled).toBe(false);
    expect(childNamed(wf.node, 'spawn').status).toBe('running');
    gate.resolve();
    const children = await pending;
    expect(children.map((child) => child.status)).toEqual(['completed', 'completed']);
  });
});

describe('@Task() events', () => {
  it('emits taskStart and taskEnd on the task node, around the children, with childIds and duration', async () => {
    const clock = new FakeClock({ start: 1_000 });
    const body: LeafBody = () => clock.advance(5);
    class Parent extends Workflow {
      @Task() async spawn(): Promise<Leaf[]> {
        return [new Leaf('a', body), new Leaf('b', body)];
      }
    }
    const wf = new Parent({ clock });
    const events = record(wf).events;
    const [a, b] = await wf.spawn();
    const task = childNamed(wf.node, 'spawn');

    const starts = eventsOfType(events, 'taskStart');
    const ends = eventsOfType(events, 'taskEnd');
    expect(starts).toHaveLength(1);
    expect(ends).toHaveLength(1);
    expect(starts[0]).toMatchObject({ name: 'spawn', nodeId: task.id, workflowId: wf.id, concurrent: false });
    expect(ends[0]).toMatchObject({
      name: 'spawn',
      nodeId: task.id,
      workflowId: wf.id,
      status: 'completed',
      duration: 10,
      childIds: [a?.id, b?.id],
    });
    expect(task.duration).toBe(10);

    const order = events.map((e) => (e.type === 'workflowStart' || e.type === 'workflowEnd' ? `${e.type}:${e.name}` : e.type));
    expect(order.indexOf('taskStart')).toBe(0);
    expect(order.indexOf('workflowStart:a')).toBeGreaterThan(0);
    expect(order.indexOf('workflowEnd:b')).toBeGreaterThan(order.indexOf('workflowStart:a'));
    expect(order.at(-1)).toBe('taskEnd');
  });
});

describe('@Task() failures', () => {
  it('fails with a clear message naming the method when it returns a non-workflow', async () => {
    class Parent extends Workflow {
      @Task() async makeNumber(): Promise<Workflow> {
        return pretendWorkflow(42);
      }
    }
    const wf = new Parent();
    const events = record(wf).events;
    const error = await caught(() => wf.makeNumber());
    expect(error).toBeInstanceOf(WorkflowError);
    expect(error).toHaveProperty('message', expect.stringContaining('"makeNumber"'));
    expect(error).toHaveProperty('message', expect.stringContaining('must return a Workflow or an array of Workflows'));
    expect(error).toHaveProperty('message', expect.stringContaining('number'));
    expect(error).toHaveProperty('cause', expect.any(UsageError));

    const task = childNamed(wf.node, 'makeNumber');
    expect(task.status).toBe('failed');
    expect(eventsOfType(events, 'taskEnd')).toEqual([
      expect.objectContaining({ name: 'makeNumber', status: 'failed', childIds: [] }),
    ]);
  });

  it('fails when it returns nothing', async () => {
    class Parent extends Workflow {
      @Task() async forgotReturn(): Promise<Workflow> {
        return pretendWorkflow(undefined);
      }
    }
    await expect(new Parent().forgotReturn()).rejects.toThrow(/"forgotReturn".*got undefined/);
  });

  it('fails when the array holds a non-workflow, and attaches and runs none of it', async () => {
    const good = new Leaf('good');
    class Parent extends Workflow {
      @Task() async mixed(): Promise<Workflow[]> {
        return [good, pretendWorkflow({ name: 'impostor' })];
      }
    }
    const wf = new Parent();
    const error = await caught(() => wf.mixed());
    expect(error).toBeInstanceOf(WorkflowError);
    expect(error).toHaveProperty('message', expect.stringMatching(/"mixed".*an array of 2 containing an object/));
    expect(wf.children).toEqual([]);
    expect(good.parent).toBeNull();
    expect(good.status).toBe('idle');
  });

  it('rejects with the failing child error and does not run later children (sequential)', async () => {
    const trace: string[] = [];
    class Parent extends Workflow {
      @Task() async spawn(): Promise<Leaf[]> {
        return [
          new Leaf('bad', () => {
            trace.push('bad');
            throw new Error('child exploded');
          }),
          new Leaf('after', () => void trace.push('after')),
        ];
      }
    }
    const wf = new Parent();
    const events = record(wf).events;
    const error = await caught(() => wf.spawn());
    expect(error).toBeInstanceOf(WorkflowError);
    expect(error).toHaveProperty('message', expect.stringContaining('child exploded'));
    expect(trace).toEqual(['bad']);
    const [bad, after] = wf.children;
    expect(error).toHaveProperty('workflowId', bad?.id);
    expect(bad?.status).toBe('failed');
    expect(after?.status).not.toBe('running');
    expect(childNamed(wf.node, 'spawn').status).toBe('failed');
    expect(eventsOfType(events, 'taskEnd')).toEqual([
      expect.objectContaining({ status: 'failed', childIds: [bad?.id, after?.id] }),
    ]);
  });

  it('concurrent: settles every sibling before rejecting with the first error', async () => {
    class Parent extends Workflow {
      @Task({ concurrent: true }) async spawn(): Promise<Leaf[]> {
        return [
          new Leaf('fails', () => {
            throw new Error('first failure');
          }),
          // Still running when its sibling fails.
          new Leaf('slow', () => yieldTicks(5)),
        ];
      }
    }
    const wf = new Parent();
    const error = await caught(() => wf.spawn());
    expect(error).toBeInstanceOf(WorkflowError);
    expect(error).not.toBeInstanceOf(MergedWorkflowError);
    expect(error).toHaveProperty('message', expect.stringContaining('first failure'));
    expect(wf.children.map((child) => `${child.name}:${child.status}`)).toEqual(['fails:failed', 'slow:completed']);
  });

  it('concurrent with errorMergeStrategy: merges all child errors', async () => {
    class Parent extends Workflow {
      @Task({ concurrent: true, errorMergeStrategy: { enabled: true } }) async spawn(): Promise<Leaf[]> {
        return [
          new Leaf('one', () => {
            throw new Error('boom one');
          }),
          new Leaf('two', () => {
            throw new Error('boom two');
          }),
        ];
      }
    }
    const error = await caught(() => new Parent().spawn());
    expect(error).toBeInstanceOf(MergedWorkflowError);
    if (!(error instanceof MergedWorkflowError)) return;
    expect(error.errors).toHaveLength(2);
    expect(error.message).toContain('boom one');
    expect(error.message).toContain('boom two');
  });
});
