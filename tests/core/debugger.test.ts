import { describe, expect, it } from 'vitest';
import {
  createWorkflow,
  exportRun,
  GroundswellError,
  parseRunExport,
  RunExportError,
  Workflow,
  WorkflowTreeDebugger,
  type RunExport,
  type WorkflowEvent,
} from 'groundswell';
import { must } from '../support/core-helpers.js';
import { deferred } from '../support/deferred.js';
import { FakeClock } from '../support/fake-clock.js';

const START = Date.UTC(2024, 0, 1);

/** root (1.75s): fetch 1.5s, spawn -> child -> child-step 250ms, broken fails; with logs. */
function buildRun(): { root: Workflow<string>; child: Workflow<number>; clock: FakeClock } {
  const clock = new FakeClock({ start: START });
  const child = createWorkflow({ name: 'child' }, (ctx) =>
    ctx.step('child-step', () => {
      clock.advance(250);
      ctx.logger.debug('deep inside');
      return 1;
    }),
  );
  const root = createWorkflow({ name: 'root', clock }, async (ctx) => {
    ctx.logger.info('starting');
    await ctx.step('fetch', () => {
      clock.advance(1500);
      ctx.logger.info('fetched', { items: 3 });
    });
    await ctx.step('spawn', () => ctx.spawnWorkflow(child));
    await ctx.step('broken', () => {
      throw new Error('kaput');
    }).catch(() => undefined);
    return 'done';
  });
  return { root, child, clock };
}

async function recordedRun(): Promise<{ root: Workflow<string>; live: WorkflowEvent[]; clock: FakeClock }> {
  const { root, clock } = buildRun();
  const live: WorkflowEvent[] = [];
  root.addObserver({ onEvent: (e) => live.push(e) });
  await root.run();
  return { root, live, clock };
}

describe('WorkflowTreeDebugger on a live workflow', () => {
  it('toTreeString shows status symbols, names, kinds, durations and failures', async () => {
    const { root } = await recordedRun();
    const lines = new WorkflowTreeDebugger(root).toTreeString().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(/^✓ root \[workflow\] 1\.75s/);
    expect(lines[1]).toMatch(/^├─ ✓ fetch \[step\] 1\.50s/);
    expect(lines[2]).toMatch(/^├─ ✓ spawn \[step\] 250\.0ms/);
    expect(lines[3]).toMatch(/^│  └─ ✓ child \[workflow\] 250\.0ms/);
    expect(lines[4]).toMatch(/^│     └─ ✓ child-step \[step\] 250\.0ms/);
    expect(lines[5]).toMatch(/^└─ ✗ broken \[step\]/);
    expect(lines[5]).toContain('kaput');
  });

  it('toTreeString shows running (◐) and cancelled (⊘) nodes', async () => {
    const started = deferred();
    const gate = deferred();
    const wf = createWorkflow({ name: 'live', clock: new FakeClock() }, async (ctx) => {
      await ctx.step('quick', () => 1);
      await ctx.step('slow', async () => {
        started.resolve();
        await gate.promise;
      });
    });
    const dbg = new WorkflowTreeDebugger(wf);
    expect(dbg.toTreeString()).toMatch(/^○ live \[workflow\]/);
    const running = wf.run();
    await started.promise;
    const during = dbg.toTreeString();
    expect(during).toMatch(/^◐ live \[workflow\].*\(running\)/);
    expect(during).toMatch(/✓ quick \[step\]/);
    expect(during).toMatch(/◐ slow \[step\].*\(running\)/);

    wf.cancel('stop');
    gate.resolve();
    await running.catch(() => undefined);
    const after = dbg.toTreeString();
    expect(after).toMatch(/^⊘ live \[workflow\]/);
    expect(after).toMatch(/⊘ slow \[step\]/);
    expect(after).not.toContain('◐');
  });

  it('toTreeString renders a subtree when given a node', async () => {
    const { root } = await recordedRun();
    const dbg = new WorkflowTreeDebugger(root);
    const spawn = must(root.node.children.find((n) => n.name === 'spawn'), 'spawn');
    const lines = dbg.toTreeString(spawn).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^✓ spawn \[step\]/);
    expect(dbg.getNode(spawn.id)).toBe(spawn);
    expect(dbg.getTree()).toBe(root.node);
  });

  it('toLogString lists every log with its time, level and node path', async () => {
    const { root } = await recordedRun();
    const lines = new WorkflowTreeDebugger(root).toLogString().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^2024-01-01T00:00:00\.000Z INFO +root: starting$/),
      expect.stringMatching(/^2024-01-01T00:00:01\.500Z INFO +root\/fetch: fetched \{"items":3\}$/),
      expect.stringMatching(/^2024-01-01T00:00:01\.750Z DEBUG root\/spawn\/child\/child-step: deep inside$/),
    ]);
  });

  it('getStats counts nodes, kinds, statuses, events, logs and depth', async () => {
    const { root, live } = await recordedRun();
    const stats = new WorkflowTreeDebugger(root).getStats();
    expect(stats).toMatchObject({
      nodes: 6,
      byKind: { workflow: 2, step: 4 },
      byStatus: { idle: 0, running: 0, completed: 5, failed: 1, cancelled: 0 },
      logs: 3,
      events: live.length,
      dropped: { events: 0, logs: 0, children: 0 },
      maxDepth: 3,
      duration: 1750,
    });
  });

  it('events.subscribe receives live events until unsubscribe', async () => {
    const { root } = buildRun();
    const dbg = new WorkflowTreeDebugger(root);
    const all: string[] = [];
    const untilFetchEnds: string[] = [];
    dbg.events.subscribe((e) => all.push(e.type));
    const sub = dbg.events.subscribe({
      next: (e) => {
        untilFetchEnds.push(e.type);
        if (e.type === 'stepEnd' && e.name === 'fetch') sub.unsubscribe();
      },
    });
    await root.run();
    expect(untilFetchEnds).toEqual(['workflowStart', 'stepStart', 'stepEnd']);
    expect(all.slice(0, 3)).toEqual(untilFetchEnds);
    expect(all.length).toBeGreaterThan(10);
    expect(all.at(-1)).toBe('workflowEnd');
  });
});

describe('run export and replay', () => {
  it('round-trips through exportRun / toJSON, JSON text and fromJSON with the same tree and stats', async () => {
    const { root } = await recordedRun();
    const dbg = new WorkflowTreeDebugger(root);
    const viaExportRun = JSON.stringify(exportRun(root.node));
    const viaDebugger = JSON.stringify(dbg.toJSON());

    for (const text of [viaExportRun, viaDebugger]) {
      const parsed = JSON.parse(text) as RunExport;
      expect(parsed.format).toBe('groundswell.run');
      expect(parsed.version).toBe(1);
      expect(parsed.root.id).toBe(root.id);

      const loaded = WorkflowTreeDebugger.fromJSON(text);
      expect(loaded.toTreeString()).toBe(dbg.toTreeString());
      expect(loaded.toLogString()).toBe(dbg.toLogString());
      expect(loaded.getStats()).toEqual(dbg.getStats());
      const fetch = must(root.node.children[0], 'fetch');
      expect(loaded.getNode(fetch.id)?.name).toBe('fetch');
      expect(loaded.getNode(fetch.id)?.parent?.id).toBe(root.id);
    }
    // An export object is accepted as well as its text.
    expect(new WorkflowTreeDebugger(exportRun(root.node)).toTreeString()).toBe(dbg.toTreeString());
    expect(parseRunExport(viaExportRun).root.name).toBe('root');
  });

  it('a loaded debugger replays the recorded events in order to each subscriber, then completes', async () => {
    const { root, live } = await recordedRun();
    const loaded = WorkflowTreeDebugger.fromJSON(JSON.stringify(exportRun(root.node)));
    for (let round = 0; round < 2; round += 1) {
      const replayed: WorkflowEvent[] = [];
      let completed = 0;
      let nextAfterComplete = false;
      loaded.events.subscribe({
        next: (e) => {
          if (completed > 0) nextAfterComplete = true;
          replayed.push(e);
        },
        complete: () => (completed += 1),
      });
      expect(replayed.map((e) => e.id)).toEqual(live.map((e) => e.id));
      expect(replayed).toEqual(JSON.parse(JSON.stringify(live)));
      expect(completed).toBe(1);
      expect(nextAfterComplete).toBe(false);
    }
  });

  it('refuses malformed exports with a RunExportError naming what is wrong', async () => {
    const { root } = await recordedRun();
    const good = exportRun(root.node);
    const cases: Array<[string, unknown, RegExp]> = [
      ['not JSON', '{"format": "groundswell.run", ', /not valid JSON/],
      ['JSON but not an object', '42', /groundswell\.run/],
      ['wrong format', { ...good, format: 'something.else' }, /format/],
      ['wrong version', { ...good, version: 2 }, /version 2/],
      ['no root', { format: 'groundswell.run', version: 1, exportedAt: 0 }, /root/],
    ];
    const missingChildren = JSON.parse(JSON.stringify(good)) as RunExport;
    delete (must(missingChildren.root.children[1], 'spawn') as Partial<RunExport['root']>).children;
    cases.push(['a node missing children', missingChildren, /root\.children\[1\]\.children/]);
    const badName = JSON.parse(JSON.stringify(good)) as RunExport;
    (badName.root as { name: unknown }).name = 7;
    cases.push(['a node with a non-string name', badName, /root\.name/]);

    for (const [label, input, message] of cases) {
      const text = typeof input === 'string' ? input : JSON.stringify(input);
      let thrown: unknown;
      try {
        WorkflowTreeDebugger.fromJSON(text);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, label).toBeInstanceOf(RunExportError);
      expect(thrown, label).toBeInstanceOf(GroundswellError);
      expect((thrown as RunExportError).message, label).toMatch(message);
      expect(() => parseRunExport(text), label).toThrow(RunExportError);
    }
  });
});

describe('deep trees', () => {
  it('handles a 1,000-deep chain of attached workflows without stack overflow', () => {
    const root = new Workflow('n0');
    let leaf = root;
    for (let i = 1; i < 1_000; i += 1) leaf = new Workflow(`n${i}`, leaf);
    leaf.logger.info('at the bottom');
    const dbg = new WorkflowTreeDebugger(root);

    const lines = dbg.toTreeString().split('\n');
    expect(lines).toHaveLength(1_000);
    expect(lines[0]).toMatch(/^○ n0 \[workflow\]/);
    expect(lines[999]).toMatch(/└─ ○ n999 \[workflow\]$/);
    const path = Array.from({ length: 1_000 }, (_, i) => `n${i}`).join('/');
    expect(dbg.toLogString()).toContain(`${path}: at the bottom`);
    expect(dbg.getStats()).toMatchObject({ nodes: 1_000, maxDepth: 999, logs: 1 });
    expect(dbg.getNode(leaf.id)).toBe(leaf.node);

    const loaded = WorkflowTreeDebugger.fromJSON(JSON.stringify(dbg.toJSON()));
    expect(loaded.toTreeString()).toBe(dbg.toTreeString());
    expect(loaded.getStats()).toEqual(dbg.getStats());
  });

  function nestedRuns(depth: number): Workflow<number> {
    const make = (i: number): Workflow<number> =>
      createWorkflow({ name: `n${i}` }, async (ctx) => {
        await Promise.resolve();
        return i === depth - 1
          ? ctx.step('leaf', () => i)
          : ctx.step(`s${i}`, async () => {
              await Promise.resolve();
              return ctx.spawnWorkflow(make(i + 1));
            });
      });
    return make(0);
  }

  it('renders a 1,000-deep chain of nested workflow runs without stack overflow', async () => {
    const root = nestedRuns(1_000);
    await expect(root.run()).resolves.toBe(999);
    const dbg = new WorkflowTreeDebugger(root);
    const stats = dbg.getStats();
    expect(stats).toMatchObject({ nodes: 2_000, maxDepth: 1_999, byKind: { workflow: 1_000, step: 1_000 } });
    expect(stats.byStatus.completed).toBe(2_000);
    const lines = dbg.toTreeString().split('\n');
    expect(lines).toHaveLength(2_000);
    expect(lines.at(-1)).toMatch(/└─ ✓ leaf \[step\]/);
    expect(JSON.parse(JSON.stringify(exportRun(root.node))).root.name).toBe('n0');
  });

  it('loads the export of a 1,000-deep chain of nested workflow runs', async () => {
    const root = nestedRuns(1_000);
    await root.run();
    const dbg = new WorkflowTreeDebugger(root);
    const loaded = WorkflowTreeDebugger.fromJSON(JSON.stringify(exportRun(root.node)));
    expect(loaded.getStats()).toEqual(dbg.getStats());
    expect(loaded.toTreeString()).toBe(dbg.toTreeString());
  });
});
