import { describe, expect, it } from 'vitest';
import {
  getCurrentNode,
  getCurrentWorkflow,
  ObservedState,
  Step,
  UsageError,
  Workflow,
  WorkflowError,
  type WorkflowNode,
} from 'groundswell';
import { caught, childNamed } from '../support/decorators-helpers.js';
import { eventsOfType, record } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';

describe('@Step() nodes', () => {
  it('creates a step node named after the method under the workflow node', async () => {
    class Pipeline extends Workflow {
      @Step() async fetchData(): Promise<void> {}
      override async run(): Promise<void> {
        await this.fetchData();
      }
    }
    const wf = new Pipeline();
    await wf.run();
    expect(wf.node.children).toHaveLength(1);
    const step = childNamed(wf.node, 'fetchData');
    expect(step.kind).toBe('step');
    expect(step.status).toBe('completed');
    expect(step.parent).toBe(wf.node);
    expect(step.workflowId).toBe(wf.id);
  });

  it('uses the `name` option instead of the method name', async () => {
    class Pipeline extends Workflow {
      @Step({ name: 'load-input' }) async fetchData(): Promise<void> {}
    }
    const wf = new Pipeline();
    const events = record(wf).events;
    await wf.fetchData();
    expect(wf.node.children.map((child) => child.name)).toEqual(['load-input']);
    expect(eventsOfType(events, 'stepStart').map((e) => e.name)).toEqual(['load-input']);
    expect(eventsOfType(events, 'stepEnd').map((e) => e.name)).toEqual(['load-input']);
  });

  it('creates one node per call, in call order', async () => {
    class Counter extends Workflow {
      @Step() async tick(): Promise<void> {}
      @Step() async tock(): Promise<void> {}
      override async run(): Promise<void> {
        await this.tick();
        await this.tock();
        await this.tick();
      }
    }
    const wf = new Counter();
    await wf.run();
    expect(wf.node.children.map((child) => child.name)).toEqual(['tick', 'tock', 'tick']);
    expect(new Set(wf.node.children.map((child) => child.id)).size).toBe(3);
  });

  it('runs the body inside the step: current node and workflow are the step and its workflow', async () => {
    let seenNode: WorkflowNode | undefined;
    let seenWorkflow: Workflow | undefined;
    class Pipeline extends Workflow {
      @Step() async inspect(): Promise<void> {
        seenNode = getCurrentNode();
        seenWorkflow = getCurrentWorkflow();
      }
    }
    const wf = new Pipeline();
    await wf.inspect();
    expect(seenNode).toBe(childNamed(wf.node, 'inspect'));
    expect(seenWorkflow).toBe(wf);
  });

  it('nests a decorated step called from another step under it', async () => {
    class Nested extends Workflow {
      @Step() async outer(): Promise<string> {
        const a = await this.inner('a');
        const b = await this.inner('b');
        return a + b;
      }
      @Step() async inner(value: string): Promise<string> {
        return value.toUpperCase();
      }
      override async run(): Promise<string> {
        return this.outer();
      }
    }
    const wf = new Nested();
    await expect(wf.run()).resolves.toBe('AB');
    const outer = childNamed(wf.node, 'outer');
    expect(wf.node.children).toEqual([outer]);
    expect(outer.children.map((child) => `${child.kind}:${child.name}:${child.status}`)).toEqual([
      'step:inner:completed',
      'step:inner:completed',
    ]);
    for (const inner of outer.children) expect(inner.parent).toBe(outer);
  });
});

describe('@Step() calls', () => {
  it('passes arguments through and resolves to the return value', async () => {
    class Calc extends Workflow {
      @Step() async add(a: number, b: number, extra: { c: number }): Promise<number> {
        return a + b + extra.c;
      }
    }
    await expect(new Calc().add(1, 2, { c: 3 })).resolves.toBe(6);
  });

  it('passes an object argument by reference and returns the same object', async () => {
    const input = { items: [1, 2] };
    class Identity extends Workflow {
      @Step() async same(value: { items: number[] }): Promise<{ items: number[] }> {
        value.items.push(3);
        return value;
      }
    }
    const out = await new Identity().same(input);
    expect(out).toBe(input);
    expect(input.items).toEqual([1, 2, 3]);
  });

  it('calls the body with `this` bound to the instance', async () => {
    let self: unknown;
    class Holder extends Workflow {
      readonly marker = 'holder';
      @Step() async who(): Promise<string> {
        self = this;
        return this.marker;
      }
    }
    const wf = new Holder();
    await expect(wf.who()).resolves.toBe('holder');
    expect(self).toBe(wf);
  });

  it('runs the body only when called, and returns a promise', async () => {
    let calls = 0;
    class Lazy extends Workflow {
      @Step() async once(): Promise<number> {
        calls += 1;
        return calls;
      }
    }
    const wf = new Lazy();
    expect(calls).toBe(0);
    const pending = wf.once();
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).resolves.toBe(1);
  });
});

describe('@Step() events and timing', () => {
  it('emits stepStart then stepEnd on the step node, with the duration from the clock', async () => {
    const clock = new FakeClock({ start: 1_000 });
    class Timed extends Workflow {
      @Step() async slow(): Promise<void> {
        clock.advance(25);
      }
    }
    const wf = new Timed({ clock });
    const events = record(wf).events;
    await wf.slow();
    const step = childNamed(wf.node, 'slow');
    const stepEvents = events.filter((e) => e.type === 'stepStart' || e.type === 'stepEnd');
    expect(stepEvents.map((e) => e.type)).toEqual(['stepStart', 'stepEnd']);
    for (const event of stepEvents) {
      expect(event.nodeId).toBe(step.id);
      expect(event.workflowId).toBe(wf.id);
    }
    const [end] = eventsOfType(events, 'stepEnd');
    expect(end).toMatchObject({ name: 'slow', status: 'completed', duration: 25, attempts: 1 });
    expect(step.startTime).toBe(1_000);
    expect(step.endTime).toBe(1_025);
    expect(step.duration).toBe(25);
    expect(step.events.map((e) => e.type)).toEqual(['stepStart', 'stepEnd']);
  });

  it('with trackTiming: false records no times and reports no duration', async () => {
    const clock = new FakeClock({ start: 1_000 });
    class Untimed extends Workflow {
      @Step({ trackTiming: false }) async quick(): Promise<void> {
        clock.advance(10);
      }
    }
    const wf = new Untimed({ clock });
    const events = record(wf).events;
    await wf.quick();
    const step = childNamed(wf.node, 'quick');
    expect(step.status).toBe('completed');
    expect(step.startTime).toBeUndefined();
    expect(step.endTime).toBeUndefined();
    expect(step.duration).toBeUndefined();
    const [end] = eventsOfType(events, 'stepEnd');
    expect(end?.duration).toBeUndefined();
    expect(JSON.parse(JSON.stringify(end))).not.toHaveProperty('duration');
    expect(step.toJSON()).not.toHaveProperty('duration');
  });

  // Regression: the key used to be present with the value undefined.
  it('with trackTiming: false leaves the duration key out of stepEnd', async () => {
    class Untimed extends Workflow {
      @Step({ trackTiming: false }) async quick(): Promise<void> {}
    }
    const wf = new Untimed();
    const events = record(wf).events;
    await wf.quick();
    const [end] = eventsOfType(events, 'stepEnd');
    expect(end).toBeDefined();
    expect(Object.keys(end ?? {})).not.toContain('duration');
  });

  it('events of a nested step are emitted inside those of the outer step', async () => {
    class Nested extends Workflow {
      @Step() async outer(): Promise<void> {
        await this.inner();
      }
      @Step() async inner(): Promise<void> {}
    }
    const wf = new Nested();
    const events = record(wf).events;
    await wf.outer();
    const order = events
      .filter((e) => e.type === 'stepStart' || e.type === 'stepEnd')
      .map((e) => `${e.type}:${e.name}`);
    expect(order).toEqual(['stepStart:outer', 'stepStart:inner', 'stepEnd:inner', 'stepEnd:outer']);
  });
});

describe('@Step() options', () => {
  it('snapshotState: true snapshots the observed state after the body, before stepEnd', async () => {
    class Stateful extends Workflow {
      @ObservedState() count = 0;
      @Step({ snapshotState: true }) async bump(): Promise<void> {
        this.count += 1;
      }
    }
    const wf = new Stateful();
    const events = record(wf).events;
    await wf.bump();
    expect(wf.node.stateSnapshot).toEqual({ count: 1 });
    expect(events.map((e) => e.type)).toEqual(['stepStart', 'stateSnapshot', 'stepEnd']);
    const [snapshot] = eventsOfType(events, 'stateSnapshot');
    expect(snapshot?.state).toEqual({ count: 1 });
    expect(snapshot?.nodeId).toBe(wf.id);

    await wf.bump();
    expect(wf.node.stateSnapshot).toEqual({ count: 2 });
    expect(eventsOfType(events, 'stateSnapshot').map((e) => e.state)).toEqual([{ count: 1 }, { count: 2 }]);
  });

  it('snapshotState: true also snapshots when the step fails', async () => {
    class Stateful extends Workflow {
      @ObservedState() count = 0;
      @Step({ snapshotState: true }) async bumpThenFail(): Promise<void> {
        this.count += 1;
        throw new Error('nope');
      }
    }
    const wf = new Stateful();
    await expect(wf.bumpThenFail()).rejects.toThrow('nope');
    expect(wf.node.stateSnapshot).toEqual({ count: 1 });
  });

  it('takes no snapshot without snapshotState', async () => {
    class Stateful extends Workflow {
      @ObservedState() count = 0;
      @Step() async bump(): Promise<void> {
        this.count += 1;
      }
    }
    const wf = new Stateful();
    const events = record(wf).events;
    await wf.bump();
    expect(wf.node.stateSnapshot).toBeNull();
    expect(eventsOfType(events, 'stateSnapshot')).toEqual([]);
  });

  it('logStart / logFinish write log entries on the step node around the body', async () => {
    class Logged extends Workflow {
      @Step({ logStart: true, logFinish: true }) async work(): Promise<void> {
        this.logger.info('inside');
      }
    }
    const wf = new Logged();
    const logs: string[] = [];
    wf.addObserver({ onLog: (entry) => logs.push(entry.message) });
    await wf.work();
    const step = childNamed(wf.node, 'work');
    expect(step.logs.map((entry) => entry.message)).toEqual(['Step "work" started', 'inside', 'Step "work" finished']);
    for (const entry of step.logs) {
      expect(entry.nodeId).toBe(step.id);
      expect(entry.workflowId).toBe(wf.id);
      expect(entry.level).toBe('info');
    }
    expect(wf.node.logs).toEqual([]);
    expect(logs).toEqual(['Step "work" started', 'inside', 'Step "work" finished']);
  });

  it('logStart alone logs only the start; no log options log nothing', async () => {
    class Logged extends Workflow {
      @Step({ logStart: true }) async started(): Promise<void> {}
      @Step() async silent(): Promise<void> {}
    }
    const wf = new Logged();
    await wf.started();
    await wf.silent();
    expect(childNamed(wf.node, 'started').logs.map((entry) => entry.message)).toEqual(['Step "started" started']);
    expect(childNamed(wf.node, 'silent').logs).toEqual([]);
  });

  it('logFinish is not written when the step fails', async () => {
    class Logged extends Workflow {
      @Step({ logStart: true, logFinish: true }) async broken(): Promise<void> {
        throw new Error('broken');
      }
    }
    const wf = new Logged();
    await expect(wf.broken()).rejects.toThrow('broken');
    expect(childNamed(wf.node, 'broken').logs.map((entry) => entry.message)).toEqual(['Step "broken" started']);
  });

  it('uses the `name` option in the start/finish log messages', async () => {
    class Logged extends Workflow {
      @Step({ name: 'Fetch', logStart: true, logFinish: true }) async fetchIt(): Promise<void> {}
    }
    const wf = new Logged();
    await wf.fetchIt();
    expect(childNamed(wf.node, 'Fetch').logs.map((entry) => entry.message)).toEqual([
      'Step "Fetch" started',
      'Step "Fetch" finished',
    ]);
  });
});

describe('@Step() failures', () => {
  it('wraps a thrown error in a WorkflowError with the original as cause', async () => {
    const original = new Error('disk full');
    class Failing extends Workflow {
      @ObservedState() attempts = 3;
      @ObservedState({ redact: true }) token = 'secret-token';
      @Step() async save(): Promise<void> {
        this.logger.warn('about to fail');
        throw original;
      }
    }
    const wf = new Failing();
    const events = record(wf).events;
    const error = await caught(() => wf.save());
    expect(error).toBeInstanceOf(WorkflowError);
    if (!(error instanceof WorkflowError)) return;
    const step = childNamed(wf.node, 'save');
    expect(error.cause).toBe(original);
    expect(error.original).toBe(original);
    expect(error.message).toContain('save');
    expect(error.message).toContain('disk full');
    expect(error.workflowId).toBe(wf.id);
    expect(error.nodeId).toBe(step.id);
    expect(error.state).toEqual({ attempts: 3, token: '***' });
    expect(error.logs.map((entry) => entry.message)).toEqual(['about to fail']);
    expect(JSON.stringify(error.toJSON())).not.toContain('secret-token');

    expect(step.status).toBe('failed');
    const [end] = eventsOfType(events, 'stepEnd');
    expect(end).toMatchObject({ name: 'save', status: 'failed', attempts: 1 });
    const errorEvents = eventsOfType(events, 'error');
    expect(errorEvents).toHaveLength(1);
    expect(errorEvents[0]?.nodeId).toBe(step.id);
  });

  it('wraps non-Error throws too', async () => {
    class Failing extends Workflow {
      @Step() async odd(): Promise<void> {
        throw 'plain string';
      }
    }
    const error = await caught(() => new Failing().odd());
    expect(error).toBeInstanceOf(WorkflowError);
    expect(error).toHaveProperty('cause', 'plain string');
    expect(error).toHaveProperty('message', expect.stringContaining('plain string'));
  });

  it('propagates an inner step failure through the outer step as the same error, failing both', async () => {
    class Nested extends Workflow {
      @Step() async outer(): Promise<void> {
        await this.inner();
      }
      @Step() async inner(): Promise<void> {
        throw new Error('inner broke');
      }
      override async run(): Promise<void> {
        await this.outer();
      }
    }
    const wf = new Nested();
    const events = record(wf).events;
    const error = await caught(() => wf.run());
    expect(error).toBeInstanceOf(WorkflowError);
    const outer = childNamed(wf.node, 'outer');
    const inner = childNamed(outer, 'inner');
    expect(error).toHaveProperty('nodeId', inner.id);
    expect(outer.status).toBe('failed');
    expect(inner.status).toBe('failed');
    expect(wf.status).toBe('failed');
    // Reported once, where it happened.
    expect(eventsOfType(events, 'error').map((e) => e.nodeId)).toEqual([inner.id]);
  });

  it('lets the outer step catch an inner failure and complete', async () => {
    class Recovering extends Workflow {
      @Step() async outer(): Promise<string> {
        try {
          await this.inner();
          return 'no error';
        } catch (error) {
          return error instanceof WorkflowError ? 'recovered' : 'wrong error type';
        }
      }
      @Step() async inner(): Promise<void> {
        throw new Error('inner broke');
      }
    }
    const wf = new Recovering();
    await expect(wf.outer()).resolves.toBe('recovered');
    const outer = childNamed(wf.node, 'outer');
    expect(outer.status).toBe('completed');
    expect(childNamed(outer, 'inner').status).toBe('failed');
  });
});

describe('@Step() retry', () => {
  it('retries until the body succeeds, with backoff from the clock', async () => {
    const clock = new FakeClock({ start: 1_000 });
    let attempts = 0;
    class Flaky extends Workflow {
      @Step({ retry: { maxAttempts: 3, backoffMs: 50 } }) async call(): Promise<string> {
        attempts += 1;
        if (attempts < 3) throw new Error(`flake ${attempts}`);
        return 'ok';
      }
    }
    const wf = new Flaky({ clock });
    const events = record(wf).events;
    await expect(wf.call()).resolves.toBe('ok');
    expect(attempts).toBe(3);
    expect(clock.sleeps).toEqual([50, 50]);
    const retries = eventsOfType(events, 'stepRetry');
    expect(retries.map((e) => ({ attempt: e.attempt, delayMs: e.delayMs, message: e.error.message }))).toEqual([
      { attempt: 1, delayMs: 50, message: 'flake 1' },
      { attempt: 2, delayMs: 50, message: 'flake 2' },
    ]);
    const [end] = eventsOfType(events, 'stepEnd');
    expect(end).toMatchObject({ status: 'completed', attempts: 3 });
    // One node for the step, however many attempts.
    expect(wf.node.children).toHaveLength(1);
    expect(childNamed(wf.node, 'call').status).toBe('completed');
    expect(eventsOfType(events, 'error')).toEqual([]);
  });

  it('passes the failed attempt number to a backoff function', async () => {
    const clock = new FakeClock({ start: 1_000 });
    class Flaky extends Workflow {
      @Step({ retry: { maxAttempts: 4, backoffMs: (attempt) => attempt * 100 } }) async call(): Promise<void> {
        throw new Error('always');
      }
    }
    const wf = new Flaky({ clock });
    await expect(wf.call()).rejects.toBeInstanceOf(WorkflowError);
    expect(clock.sleeps).toEqual([100, 200, 300]);
  });

  it('fails with the last error after maxAttempts', async () => {
    let attempts = 0;
    class Broken extends Workflow {
      @Step({ retry: { maxAttempts: 2 } }) async call(): Promise<void> {
        attempts += 1;
        throw new Error(`failure ${attempts}`);
      }
    }
    const wf = new Broken({ clock: new FakeClock({ start: 1_000 }) });
    const events = record(wf).events;
    const error = await caught(() => wf.call());
    expect(attempts).toBe(2);
    expect(error).toBeInstanceOf(WorkflowError);
    expect(error).toHaveProperty('cause', expect.objectContaining({ message: 'failure 2' }));
    expect(eventsOfType(events, 'stepEnd')).toEqual([expect.objectContaining({ status: 'failed', attempts: 2 })]);
  });

  it('stops at once when retryOn returns false, and hands it the error and attempt', async () => {
    const seen: Array<[string, number]> = [];
    let attempts = 0;
    class Picky extends Workflow {
      @Step({
        retry: {
          maxAttempts: 5,
          retryOn: (error, attempt) => {
            seen.push([error instanceof Error ? error.message : String(error), attempt]);
            return error instanceof Error && error.message === 'transient';
          },
        },
      })
      async call(): Promise<void> {
        attempts += 1;
        throw new Error(attempts === 1 ? 'transient' : 'fatal');
      }
    }
    const wf = new Picky({ clock: new FakeClock({ start: 1_000 }) });
    await expect(wf.call()).rejects.toThrow('fatal');
    expect(attempts).toBe(2);
    expect(seen).toEqual([
      ['transient', 1],
      ['fatal', 2],
    ]);
  });

  it('never retries a UsageError', async () => {
    let attempts = 0;
    class Misused extends Workflow {
      @Step({ retry: { maxAttempts: 3 } }) async call(): Promise<void> {
        attempts += 1;
        throw new UsageError('wrong call');
      }
    }
    const wf = new Misused({ clock: new FakeClock({ start: 1_000 }) });
    const error = await caught(() => wf.call());
    expect(attempts).toBe(1);
    expect(error).toBeInstanceOf(WorkflowError);
    expect(error).toHaveProperty('cause', expect.any(UsageError));
  });

  it('rejects invalid retry options when the decorator is created', () => {
    expect(() => Step({ retry: { maxAttempts: 0 } })).toThrow(UsageError);
    expect(() => Step({ retry: { maxAttempts: 1.5 } })).toThrow(/maxAttempts/);
    expect(() => Step({ retry: { maxAttempts: 2, backoffMs: -1 } })).toThrow(/backoffMs/);
  });
});
