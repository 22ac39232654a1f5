import { describe, expect, it } from 'vitest';
import {
  createWorkflow,
  UsageError,
  Workflow,
  type WorkflowEvent,
  type WorkflowObserver,
} from 'groundswell';
import { allNodes, must } from '../support/core-helpers.js';
import { eventLabel, eventsOfType, record } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';

function childWorkflow(name: string): Workflow<string> {
  return createWorkflow({ name }, async (ctx) => {
    await ctx.step(`${name}-work`, () => ctx.logger.info(`${name} working`));
    return name;
  });
}

describe('root observers', () => {
  it('receive every log, event and state snapshot of the whole subtree, in order', async () => {
    const child = createWorkflow({ name: 'child' }, async (ctx) => {
      await ctx.step('c1', () => {
        ctx.logger.info('in c1');
        ctx.workflow.snapshotState();
      });
      return 2;
    });
    const root = createWorkflow({ name: 'root' }, async (ctx) => {
      await ctx.step('a', () => ctx.logger.info('in a'));
      await ctx.step('spawn', () => ctx.spawnWorkflow(child));
      ctx.logger.warn('root done');
      return 1;
    });
    const rec = record(root);
    const trees: string[] = [];
    root.addObserver({ onTreeChanged: (r) => trees.push(r.name) });

    await root.run();

    expect(rec.sequence).toEqual([
      'event:workflowStart:root',
      'event:stepStart:a',
      'log:in a',
      'event:stepEnd:a',
      'event:stepStart:spawn',
      'event:childAttached',
      'event:treeUpdated',
      'event:workflowStart:child',
      'event:stepStart:c1',
      'log:in c1',
      'event:stateSnapshot',
      'state:child',
      'event:stepEnd:c1',
      'event:workflowEnd:child',
      'event:stepEnd:spawn',
      'log:root done',
      'event:workflowEnd:root',
    ]);
    expect(trees).toEqual(['root']);

    // "Every" event: exactly the events stored anywhere in the tree, each delivered once.
    const stored = allNodes(root.node).flatMap((n) => n.events.map((e) => e.id));
    expect(rec.events.map((e) => e.id).sort()).toEqual([...stored].sort());
    expect(new Set(rec.events.map((e) => e.id)).size).toBe(rec.events.length);
    // Each event and log names the node it happened on.
    const c1 = must(allNodes(root.node).find((n) => n.name === 'c1'), 'c1');
    expect(rec.logs.find((l) => l.message === 'in c1')?.nodeId).toBe(c1.id);
    expect(rec.events.find((e) => eventLabel(e) === 'stepStart:c1')?.nodeId).toBe(c1.id);
    expect(rec.events.find((e) => eventLabel(e) === 'stepStart:c1')?.workflowId).toBe(child.id);
  });

  it('every event carries id, nodeId, workflowId and timestamp, and names use one field', async () => {
    const clock = new FakeClock({ tick: 1 });
    const child = createWorkflow({ name: 'child' }, (ctx) =>
      ctx.step('retrying', () => {
        attempts += 1;
        if (attempts === 1) throw new Error('once');
        return attempts;
      }, { retry: { maxAttempts: 2 } }),
    );
    let attempts = 0;
    const root = createWorkflow({ name: 'root', clock }, async (ctx) => {
      await ctx.step('spawn', () => ctx.spawnWorkflow(child));
      ctx.workflow.snapshotState();
      await ctx.step('fails', () => {
        throw new Error('x');
      }).catch(() => undefined);
    });
    const rec = record(root);
    await root.run();
    const nodeIds = new Set(allNodes(root.node).map((n) => n.id));
    const types = new Set(rec.events.map((e) => e.type));
    expect([...types].sort()).toEqual(
      ['childAttached', 'error', 'stateSnapshot', 'stepEnd', 'stepRetry', 'stepStart', 'treeUpdated', 'workflowEnd', 'workflowStart'].sort(),
    );
    let last = -Infinity;
    for (const e of rec.events) {
      expect(nodeIds.has(e.nodeId), `${e.type} nodeId`).toBe(true);
      expect([root.id, child.id]).toContain(e.workflowId);
      expect(typeof e.timestamp).toBe('number');
      expect(e.timestamp).toBeGreaterThanOrEqual(last);
      last = e.timestamp;
      if (e.type.startsWith('step') || e.type.startsWith('workflow')) {
        expect(e, e.type).toHaveProperty('name');
        expect(e, e.type).not.toHaveProperty('stepName');
      }
    }
    expect(new Set(rec.events.map((e) => e.id)).size).toBe(rec.events.length);
  });

  it('refuse addObserver on a non-root with a UsageError naming the root', () => {
    const root = new Workflow('the-root');
    const child = new Workflow('kid', root);
    expect(() => child.addObserver({})).toThrow(UsageError);
    expect(() => child.addObserver({})).toThrow(/the-root/);
    const loose: unknown = 'not an observer';
    // @ts-expect-error simulating an untyped caller
    expect(() => root.addObserver(loose)).toThrow(UsageError);
  });

  it('stop receiving after the unsubscribe handle or removeObserver is called', async () => {
    const wf = createWorkflow({ name: 'w' }, async (ctx) => {
      await ctx.step('one', () => ctx.logger.info('first'));
      gate();
      await ctx.step('two', () => ctx.logger.info('second'));
    });
    const a = record(wf);
    const bEvents: WorkflowEvent[] = [];
    const b: WorkflowObserver = { onEvent: (e) => bEvents.push(e) };
    wf.addObserver(b);
    const c = record(wf);
    const gate = (): void => {
      a.unsubscribe();
      a.unsubscribe(); // twice is harmless
      wf.removeObserver(b);
    };

    await wf.run();

    expect(a.logs.map((l) => l.message)).toEqual(['first']);
    expect(a.sequence.at(-1)).toBe('event:stepEnd:one');
    expect(bEvents.map(eventLabel).at(-1)).toBe('stepEnd:one');
    // The remaining observer still sees everything.
    expect(c.logs.map((l) => l.message)).toEqual(['first', 'second']);
    expect(c.sequence.at(-1)).toBe('event:workflowEnd:w');
  });

  it('see children attached after the observer was added, including logs written outside any run', async () => {
    const root = new Workflow('root');
    const rec = record(root);
    const child = childWorkflow('late');
    const grandchild = childWorkflow('late-gc');
    child.attachChild(grandchild);

    root.attachChild(child);
    child.logger.info('child says hi');
    grandchild.logger.debug('grandchild says hi');
    child.logger.child({ tag: 't' }).warn('child logger child');
    await child.run();
    await grandchild.run();

    expect(rec.logs.map((l) => l.message)).toEqual([
      'child says hi',
      'grandchild says hi',
      'child logger child',
      'late working',
      'late-gc working',
    ]);
    expect(rec.logs[2]?.data).toEqual({ tag: 't' });
    expect(rec.sequence.filter((s) => s.startsWith('event:workflow'))).toEqual([
      'event:workflowStart:late',
      'event:workflowEnd:late',
      'event:workflowStart:late-gc',
      'event:workflowEnd:late-gc',
    ]);
  });

  it('follow a re-parented child: new events go to the new root and no longer to the old one', async () => {
    const rootA = new Workflow('rootA');
    const rootB = new Workflow('rootB');
    const a = record(rootA);
    const b = record(rootB);
    const child = childWorkflow('mover');
    const grandchild = childWorkflow('mover-gc');
    child.attachChild(grandchild);

    rootA.attachChild(child);
    child.logger.info('A: child log');
    grandchild.logger.info('A: grandchild log');
    await grandchild.run();

    rootA.detachChild(child);
    child.logger.info('limbo: child log');
    // While detached the child is a root and can hold its own observers.
    const limbo = record(child);
    grandchild.logger.info('limbo: grandchild log');
    limbo.unsubscribe();

    rootB.attachChild(child);
    expect(() => child.addObserver({})).toThrow(UsageError);
    child.logger.info('B: child log');
    child.logger.child({ via: 'child logger' }).info('B: child.child log');
    grandchild.logger.info('B: grandchild log');
    grandchild.logger.child({ via: 'gc child logger' }).info('B: grandchild.child log');
    await child.run();
    await grandchild.run();
    child.snapshotState();

    expect(a.logs.map((l) => l.message)).toEqual(['A: child log', 'A: grandchild log', 'mover-gc working']);
    expect(b.logs.map((l) => l.message)).toEqual([
      'B: child log',
      'B: child.child log',
      'B: grandchild log',
      'B: grandchild.child log',
      'mover working',
      'mover-gc working',
    ]);
    expect(limbo.logs.map((l) => l.message)).toEqual(['limbo: grandchild log']);

    // Old root: saw the attach, the grandchild's first run, the detach; nothing after.
    const aTypes = a.events.map(eventLabel);
    expect(aTypes).toContain('childDetached');
    expect(aTypes.slice(aTypes.lastIndexOf('childDetached') + 1)).toEqual(['treeUpdated']);
    expect(a.events.filter((e) => e.workflowId === child.id || e.workflowId === grandchild.id).map(eventLabel)).toEqual([
      'workflowStart:mover-gc',
      'stepStart:mover-gc-work',
      'stepEnd:mover-gc-work',
      'workflowEnd:mover-gc',
    ]);
    expect(a.states).toEqual([]);

    // New root: everything after the attach.
    expect(b.events.filter((e) => e.workflowId === child.id || e.workflowId === grandchild.id).map(eventLabel)).toEqual([
      'workflowStart:mover',
      'stepStart:mover-work',
      'stepEnd:mover-work',
      'workflowEnd:mover',
      'workflowStart:mover-gc',
      'stepStart:mover-gc-work',
      'stepEnd:mover-gc-work',
      'workflowEnd:mover-gc',
      'stateSnapshot',
    ]);
    expect(b.states.map((n) => n.name)).toEqual(['mover']);
    expect(eventsOfType(b.events, 'childAttached').map((e) => e.childName)).toEqual(['mover']);
  });

  it('see a child moved while it is running deliver its later events to the new root', async () => {
    const rootA = new Workflow('rootA');
    const rootB = new Workflow('rootB');
    const a = record(rootA);
    const b = record(rootB);
    let release!: () => void;
    const paused = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reachedPause!: () => void;
    const atPause = new Promise<void>((resolve) => {
      reachedPause = resolve;
    });
    const child = createWorkflow({ name: 'runner' }, async (ctx) => {
      await ctx.step('before', () => ctx.logger.info('before move'));
      reachedPause();
      await paused;
      await ctx.step('after', () => ctx.logger.info('after move'));
    });
    rootA.attachChild(child);
    const done = child.run();
    await atPause;
    rootA.detachChild(child);
    rootB.attachChild(child);
    release();
    await done;

    expect(a.logs.map((l) => l.message)).toEqual(['before move']);
    expect(b.logs.map((l) => l.message)).toEqual(['after move']);
    expect(b.sequence.filter((s) => s.includes('after') || s.includes('runner'))).toEqual([
      'event:stepStart:after',
      'log:after move',
      'event:stepEnd:after',
      'event:workflowEnd:runner',
    ]);
    expect(a.sequence).not.toContain('event:workflowEnd:runner');
  });
});

describe('observer failures', () => {
  it('an observer that throws breaks neither the workflow nor other observers, and is reported once', async () => {
    const wf = createWorkflow({ name: 'w' }, async (ctx) => {
      await ctx.step('s1', () => ctx.logger.info('hello'));
      await ctx.step('s2', () => 2);
      return 'ok';
    });
    let thrown = 0;
    wf.addObserver({
      onEvent(e) {
        if (e.type === 'stepStart' && thrown === 0) {
          thrown += 1;
          throw new Error('observer broke');
        }
      },
    });
    const good = record(wf);

    await expect(wf.run()).resolves.toBe('ok');

    expect(thrown).toBe(1);
    expect(wf.status).toBe('completed');
    expect(good.events.map(eventLabel)).toEqual([
      'workflowStart:w',
      'observerError',
      'stepStart:s1',
      'stepEnd:s1',
      'stepStart:s2',
      'stepEnd:s2',
      'workflowEnd:w',
    ]);
    expect(good.logs.map((l) => l.message)).toEqual(['hello']);
    const reports = eventsOfType(good.events, 'observerError');
    expect(reports).toHaveLength(1);
    expect(reports[0]?.callback).toBe('onEvent');
    expect(reports[0]?.error.message).toBe('observer broke');
    expect(eventsOfType([...wf.node.events], 'observerError')).toHaveLength(1);
  });

  it('an observer that also throws on the report causes no recursion', async () => {
    const wf = createWorkflow({ name: 'w' }, async (ctx) => {
      await ctx.step('s1', () => ctx.logger.info('hello'));
      return 'ok';
    });
    let calls = 0;
    let logCalls = 0;
    wf.addObserver({
      onEvent() {
        calls += 1;
        throw new Error('always');
      },
      onLog() {
        logCalls += 1;
        throw new Error('logs too');
      },
    });
    const good = record(wf);

    await expect(wf.run()).resolves.toBe('ok');

    const reports = eventsOfType(good.events, 'observerError');
    const regular = good.events.filter((e) => e.type !== 'observerError');
    expect(regular.map(eventLabel)).toEqual(['workflowStart:w', 'stepStart:s1', 'stepEnd:s1', 'workflowEnd:w']);
    // One report per failure (4 events + 1 log); the throw on each report is swallowed.
    expect(reports).toHaveLength(regular.length + 1);
    expect(reports.filter((r) => r.callback === 'onLog')).toHaveLength(1);
    expect(calls).toBe(regular.length + reports.length);
    expect(logCalls).toBe(1);
  });

  it('reports throws from onStateUpdated and onTreeChanged with the callback name', async () => {
    const root = new Workflow('root');
    root.addObserver({
      onStateUpdated() {
        throw new Error('state observer broke');
      },
      onTreeChanged() {
        throw new Error('tree observer broke');
      },
    });
    const good = record(root);
    root.snapshotState();
    root.attachChild(new Workflow('kid'));
    expect(eventsOfType(good.events, 'observerError').map((r) => [r.callback, r.error.message])).toEqual([
      ['onStateUpdated', 'state observer broke'],
      ['onTreeChanged', 'tree observer broke'],
    ]);
  });
});
