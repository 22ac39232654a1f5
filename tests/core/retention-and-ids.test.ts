import { describe, expect, it } from 'vitest';
import {
  createWorkflow,
  DEFAULT_RETENTION,
  UsageError,
  Workflow,
  WorkflowTreeDebugger,
  type RetentionOptions,
  type WorkflowEvent,
} from 'groundswell';
import { allNodes, must } from '../support/core-helpers.js';
import { deferred } from '../support/deferred.js';
import { record } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';

describe('ids', () => {
  it('gives 10,000 workflow and step nodes unique ids, with a frozen clock', async () => {
    const clock = new FakeClock(); // never advances: ids cannot come from the time
    const ids: string[] = [];
    const eventIds: Array<WorkflowEvent['id']> = [];
    const logIds: string[] = [];
    for (let w = 0; w < 200; w += 1) {
      const wf = createWorkflow({ name: `wf-${w}`, clock }, async (ctx) => {
        for (let s = 0; s < 49; s += 1) await ctx.step(`s${s}`, () => (s === 0 ? ctx.logger.info('hi') : s));
      });
      await wf.run();
      for (const node of allNodes(wf.node)) {
        ids.push(node.id);
        eventIds.push(...node.events.map((e) => e.id));
        logIds.push(...node.logs.map((l) => l.id));
      }
    }
    expect(ids).toHaveLength(10_000);
    expect(new Set(ids).size).toBe(10_000);
    expect(new Set(eventIds).size).toBe(eventIds.length);
    expect(eventIds.length).toBe(200 * (2 + 49 * 2));
    expect(new Set(logIds).size).toBe(200);
    // Events and logs never share an id with a node.
    const everything = new Set([...ids, ...eventIds, ...logIds]);
    expect(everything.size).toBe(ids.length + eventIds.length + logIds.length);
  });

  it('gives concurrently created steps distinct ids', async () => {
    const wf = createWorkflow({ name: 'par', clock: new FakeClock() }, (ctx) =>
      Promise.all(Array.from({ length: 500 }, (_, i) => ctx.step('same-name', () => i))),
    );
    await wf.run();
    const ids = wf.node.children.map((n) => n.id);
    expect(ids).toHaveLength(500);
    expect(new Set(ids).size).toBe(500);
  });
});

describe('retention', () => {
  it('defaults to bounded history', () => {
    expect(DEFAULT_RETENTION).toEqual({ maxEventsPerNode: 1_000, maxLogsPerNode: 1_000, maxChildrenPerNode: 1_000 });
  });

  it('maxEventsPerNode bounds the stored events and counts the dropped ones; observers still see all', async () => {
    const max = 10;
    const wf = createWorkflow({ name: 'chatty', retention: { maxEventsPerNode: max } }, (ctx) => {
      for (let i = 0; i < 50; i += 1) ctx.workflow.snapshotState();
    });
    const rec = record(wf);
    await wf.run();
    // workflowStart + 50 snapshots + workflowEnd, all delivered live.
    expect(rec.events).toHaveLength(52);
    const stored = wf.node.events;
    expect(stored).toHaveLength(max);
    expect(wf.node.dropped.events).toBe(52 - max);
    // What is kept is a subset of what happened, in order, including the start and the end.
    const liveIds = rec.events.map((e) => e.id);
    const storedIds = stored.map((e) => e.id);
    expect(storedIds.every((id) => liveIds.includes(id))).toBe(true);
    expect([...storedIds].sort((a, b) => liveIds.indexOf(a) - liveIds.indexOf(b))).toEqual(storedIds);
    expect(stored[0]?.type).toBe('workflowStart');
    expect(stored.at(-1)?.type).toBe('workflowEnd');
    expect(wf.toJSON().dropped.events).toBe(52 - max);
    expect(wf.toJSON().events).toHaveLength(max);
    expect(new WorkflowTreeDebugger(wf).getStats().dropped.events).toBe(52 - max);
  });

  it('a third kept event and the ring made for a fourth keep the same events, at every small limit', async () => {
    for (let max = 1; max <= 6; max += 1) {
      for (let snapshots = 0; snapshots <= 6; snapshots += 1) {
        const wf = createWorkflow({ name: 'few', retention: { maxEventsPerNode: max } }, (ctx) => {
          for (let i = 0; i < snapshots; i += 1) ctx.workflow.snapshotState();
        });
        const rec = record(wf);
        await wf.run();
        const live = rec.events.filter((e) => e.nodeId === wf.node.id).map((e) => e.id);
        // The first two, then the newest that fit.
        const kept = live.length <= max ? live : [...live.slice(0, Math.min(2, max)), ...live.slice(live.length - Math.max(0, max - 2))];
        expect(wf.node.events.map((e) => e.id)).toEqual(kept);
        expect(wf.node.dropped.events).toBe(live.length - kept.length);
      }
    }
  });

  it('maxEventsPerNode also bounds a step node that emits many events', async () => {
    const max = 6;
    const clock = new FakeClock();
    let calls = 0;
    const wf = createWorkflow({ name: 'retrying', clock, retention: { maxEventsPerNode: max } }, (ctx) =>
      ctx.step(
        'flaky',
        () => {
          calls += 1;
          if (calls < 40) throw new Error('again');
          return 'ok';
        },
        { retry: { maxAttempts: 40 } },
      ),
    );
    const rec = record(wf);
    await wf.run();
    const step = must(wf.node.children[0], 'step');
    const live = rec.events.filter((e) => e.nodeId === step.id);
    expect(live).toHaveLength(41); // stepStart, 39 stepRetry, stepEnd
    // Bounded by the budget (a step keeps its own start and end on top of it).
    expect(step.events.length).toBeLessThanOrEqual(max + 2);
    expect(step.events.length + step.dropped.events).toBe(live.length);
    expect(step.events[0]?.type).toBe('stepStart');
    expect(step.events.at(-1)?.type).toBe('stepEnd');
  });

  it('maxLogsPerNode keeps the newest log entries and counts the dropped ones', async () => {
    const wf = createWorkflow({ name: 'logger', retention: { maxLogsPerNode: 5 } }, async (ctx) => {
      for (let i = 0; i < 20; i += 1) ctx.logger.info(`line ${i}`);
      await ctx.step('s', () => {
        for (let i = 0; i < 7; i += 1) ctx.logger.debug(`step line ${i}`);
      });
    });
    const rec = record(wf);
    await wf.run();
    expect(rec.logs).toHaveLength(27);
    expect(wf.node.logs.map((l) => l.message)).toEqual(['line 15', 'line 16', 'line 17', 'line 18', 'line 19']);
    expect(wf.node.dropped.logs).toBe(15);
    const step = wf.node.children[0];
    expect(step?.logs).toHaveLength(5);
    expect(step?.dropped.logs).toBe(2);
    expect(new WorkflowTreeDebugger(wf).getStats().dropped.logs).toBe(17);
  });

  it('maxChildrenPerNode prunes finished step nodes, keeps running ones and counts the pruned', async () => {
    const max = 10;
    const total = 1_000;
    const gate = deferred();
    let longRunning: Promise<string> | undefined;
    const sizes: number[] = [];
    const wf = createWorkflow({ name: 'many', retention: { maxChildrenPerNode: max } }, async (ctx) => {
      longRunning = ctx.step('long-running', async () => {
        await gate.promise;
        return 'long done';
      });
      for (let i = 0; i < total; i += 1) {
        await ctx.step(`short-${i}`, () => i);
        sizes.push(ctx.workflow.node.children.length);
      }
      const stillThere = ctx.workflow.node.children.some((n) => n.name === 'long-running' && n.status === 'running');
      gate.resolve();
      await longRunning;
      return stillThere;
    });
    await expect(wf.run()).resolves.toBe(true);

    const children = wf.node.children;
    // Bounded all along, not just at the end.
    expect(Math.max(...sizes)).toBeLessThan(4 * max);
    expect(children.length).toBeLessThan(4 * max);
    expect(children.length + wf.node.dropped.children).toBe(total + 1);
    // Oldest finished ones went first: the newest are kept.
    expect(children.at(-1)?.name).toBe(`short-${total - 1}`);
    expect(children.some((n) => n.name === 'short-0')).toBe(false);
    const stats = new WorkflowTreeDebugger(wf).getStats();
    expect(stats.dropped.children).toBe(wf.node.dropped.children);
    expect(new WorkflowTreeDebugger(wf).toTreeString()).toContain(
      `${wf.node.dropped.children} earlier finished children pruned by retention`,
    );
  });

  it('maxChildrenPerNode prunes finished child workflows like steps, newest kept, in the tree and in children', async () => {
    const kids: Workflow[] = [];
    const wf = createWorkflow({ name: 'parent', retention: { maxChildrenPerNode: 2 } }, async (ctx) => {
      for (let i = 0; i < 100; i += 1) {
        const kid = createWorkflow({ name: `kid-${i}` }, () => i);
        kids.push(kid);
        await ctx.spawnWorkflow(kid);
        await ctx.step(`step-${i}`, () => i);
      }
    });
    await wf.run();
    const kept = wf.node.children.filter((n) => n.kind === 'workflow').map((n) => n.name);
    expect(kept.length).toBeLessThan(100);
    expect(kept.at(-1)).toBe('kid-99');
    expect(wf.node.dropped.children).toBeGreaterThan(100);
    expect(wf.children.length).toBeLessThan(100);
    expect(wf.children.at(-1)).toBe(kids[99]);
  });

  it('maxChildrenPerNode never prunes a step whose child workflow is still running', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = createWorkflow({ name: 'slow' }, async (ctx) => ctx.step('wait', () => gate));
    let slowRun: Promise<unknown> = Promise.resolve();
    let kept = false;
    const wf = createWorkflow({ name: 'parent', retention: { maxChildrenPerNode: 2 } }, async (ctx) => {
      await ctx.step('start-slow', () => {
        // Not awaited: the step ends while its child workflow runs on.
        slowRun = ctx.spawnWorkflow(slow);
      });
      for (let i = 0; i < 40; i += 1) await ctx.step(`step-${i}`, () => i);
      kept = ctx.eventTree.getNode(slow.id) !== undefined;
      release();
    });
    await wf.run();
    await slowRun;
    expect(kept).toBe(true);
    expect(wf.node.dropped.children).toBeGreaterThan(0);
  });

  it('children inherit retention from their parent unless they set their own', async () => {
    const inherits = createWorkflow({ name: 'inherits' }, (ctx) => {
      for (let i = 0; i < 10; i += 1) ctx.logger.info(`i${i}`);
    });
    const own = createWorkflow({ name: 'own', retention: { maxLogsPerNode: 4 } }, (ctx) => {
      for (let i = 0; i < 10; i += 1) ctx.logger.info(`o${i}`);
    });
    const root = createWorkflow({ name: 'root', retention: { maxLogsPerNode: 2 } }, async (ctx) => {
      await ctx.spawnWorkflow(inherits);
      await ctx.spawnWorkflow(own);
    });
    await root.run();
    expect(inherits.node.logs.map((l) => l.message)).toEqual(['i8', 'i9']);
    expect(own.node.logs).toHaveLength(4);
  });

  it('refuses invalid retention values with a UsageError naming the option', () => {
    const invalid: Array<Partial<RetentionOptions>> = [
      { maxEventsPerNode: -1 },
      { maxLogsPerNode: 1.5 },
      { maxChildrenPerNode: Number.NaN },
      { maxEventsPerNode: Number.POSITIVE_INFINITY },
    ];
    for (const retention of invalid) {
      const key = Object.keys(retention)[0] as string;
      expect(() => createWorkflow({ name: 'bad', retention }, () => 1)).toThrow(UsageError);
      expect(() => new Workflow({ name: 'bad', retention })).toThrow(new RegExp(key));
    }
    const loose: unknown = { maxLogsPerNode: '10' };
    expect(() => new Workflow({ name: 'bad', retention: loose as Partial<RetentionOptions> })).toThrow(UsageError);
    // Zero is allowed: keep nothing, count everything.
    const silent = new Workflow({ name: 'silent', retention: { maxLogsPerNode: 0 } });
    silent.logger.info('gone');
    expect(silent.node.logs).toEqual([]);
    expect(silent.node.dropped.logs).toBe(1);
  });
});
