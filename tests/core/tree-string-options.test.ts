import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  UsageError,
  usageById,
  usageRollup,
  WorkflowTreeDebugger,
  type Workflow,
} from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { must } from '../support/core-helpers.js';
import { deferred } from '../support/deferred.js';
import { FakeClock } from '../support/fake-clock.js';

const Label = z.object({ label: z.string() });
const NO_CACHE = { input_tokens: 1_000, output_tokens: 400, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

/** triage -> 6 × (classify workflow -> label step -> agent call), each step taking 200ms. */
async function fanOut(opts: { failLast?: boolean; mission?: string } = {}): Promise<Workflow<void>> {
  const clock = new FakeClock();
  const tickets = ['a', 'b', 'c', 'd', 'e', 'f'];
  const model = new ScriptedModel(tickets.map(() => json({ label: 'bug' }, { usage: NO_CACHE })));
  const agent = createAgent({ name: 'classifier', client: model.client() });
  const config = opts.mission === undefined ? { name: 'triage', clock } : { name: 'triage', clock, mission: opts.mission };
  const root = createWorkflow(config, async (ctx) => {
    for (const [i, ticket] of tickets.entries()) {
      const child = createWorkflow({ name: 'classify' }, (c) =>
        c.step('label', async () => {
          clock.advance(200);
          const answer = await agent.prompt(createPrompt({ user: `Classify ${ticket}`, responseFormat: Label }));
          if (opts.failLast === true && i === tickets.length - 1) throw new Error('no label');
          return answer;
        }),
      );
      await ctx.spawnWorkflow(child).catch(() => undefined);
    }
  });
  await root.run();
  return root;
}

/** Three same-named steps of 100ms each, then one named differently; `failSecond` fails the 2nd. */
async function steps(failSecond: boolean): Promise<Workflow<void>> {
  const clock = new FakeClock();
  const wf = createWorkflow({ name: 'loop', clock }, async (ctx) => {
    for (let i = 0; i < 3; i += 1) {
      await ctx
        .step('poll', () => {
          clock.advance(100);
          if (failSecond && i === 1) throw new Error('busy');
        })
        .catch(() => undefined);
    }
    await ctx.step('done', () => clock.advance(50));
  });
  await wf.run();
  return wf;
}

describe('toTreeString defaults', () => {
  it('prints every node, figure and why line when no option is given, as before', async () => {
    const root = await fanOut({ mission: 'Short queues' });
    const dbg = new WorkflowTreeDebugger(root);
    const text = dbg.toTreeString();
    expect(dbg.toTreeString(root.node, {})).toBe(text);
    expect(dbg.toTreeString(root.node, { compact: false })).toBe(text);
    const lines = text.split('\n');
    expect(lines).toHaveLength(1 + 6 * 4);
    expect(lines.filter((l) => l.includes('why Mission: Short queues'))).toHaveLength(6);
    expect(lines.filter((l) => l.includes('1,000 in / 400 out tok'))).toHaveLength(18);
    expect(lines[0]).toMatch(/^✓ triage \[workflow\] .* · 6,000 in \/ 2,400 out tok/);
  });
});

describe('toTreeString compact', () => {
  it('folds a run of look-alike finished siblings into one line with total duration and tokens', async () => {
    const root = await fanOut();
    const lines = new WorkflowTreeDebugger(root).toTreeString(root.node, { compact: true }).split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^✓ triage \[workflow\] \S+ · 6,000 in \/ 2,400 out tok$/);
    expect(lines[1]).toMatch(/^└─ × 6 classify \[workflow\] ✓ 1\.\d\ds · 8,400 tok$/);
  });

  it('counts each status when a folded run has mixed outcomes', async () => {
    const root = await fanOut({ failLast: true });
    const lines = new WorkflowTreeDebugger(root).toTreeString(root.node, { compact: true }).split('\n');
    expect(lines[1]).toMatch(/^└─ × 6 classify \[workflow\] 5✓ 1✗ /);
  });

  it('gives a folded run of concurrent siblings the time they covered, not the sum of their durations', async () => {
    const clock = new FakeClock();
    const gate = deferred();
    const root = createWorkflow({ name: 'fan', clock }, async (ctx) => {
      const children = ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => createWorkflow({ name: 'classify' }, () => gate.promise.then(() => n)));
      const all = ctx.spawnAll(children, { concurrency: 6 });
      // All six started at 0; they end together at 300ms.
      clock.advance(300);
      gate.resolve();
      await all;
    });
    await root.run();
    const lines = new WorkflowTreeDebugger(root).toTreeString(root.node, { compact: true }).split('\n');
    expect(lines[1]).toBe('└─ × 6 classify [workflow] ✓ 300.0ms');
  });

  it('folds consecutive same-named steps only, with exact summed durations', async () => {
    const wf = await steps(true);
    const lines = new WorkflowTreeDebugger(wf).toTreeString(wf.node, { compact: true }).split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^✓ loop \[workflow\] 350\.0ms$/),
      '├─ × 3 poll [step] 2✓ 1✗ 300.0ms',
      '└─ ✓ done [step] 50.0ms',
    ]);
  });

  it('does not fold a lone node nor a running one', async () => {
    const clock = new FakeClock();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const wf = createWorkflow({ name: 'live', clock }, async (ctx) => {
      await ctx.step('poll', () => undefined);
      await ctx.step('poll', () => gate);
    });
    const running = wf.run();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const during = new WorkflowTreeDebugger(wf).toTreeString(wf.node, { compact: true }).split('\n');
    expect(during).toHaveLength(3);
    expect(during[1]).toMatch(/^├─ ✓ poll \[step\]/);
    expect(during[2]).toMatch(/^└─ ◐ poll \[step\].*\(running\)/);
    release();
    await running;
    expect(new WorkflowTreeDebugger(wf).toTreeString(wf.node, { compact: true }).split('\n')[1]).toMatch(/^└─ × 2 poll/);
  });

  it('prints a token figure only where it differs from the only child, and each why line once', async () => {
    const clock = new FakeClock();
    const model = new ScriptedModel([
      json({ label: 'x' }, { usage: NO_CACHE }),
      json({ label: 'y' }, { usage: NO_CACHE }),
    ]);
    const agent = createAgent({ name: 'classifier', client: model.client() });
    const wf = createWorkflow({ name: 'pair', clock, mission: 'Short queues' }, async (ctx) => {
      await ctx.step('first', () => agent.prompt(createPrompt({ user: 'One', responseFormat: Label })));
      await ctx.step('second', () => agent.prompt(createPrompt({ user: 'Two', responseFormat: Label })));
    });
    await wf.run();
    const dbg = new WorkflowTreeDebugger(wf);
    const full = dbg.toTreeString().split('\n');
    const lines = dbg.toTreeString(wf.node, { compact: true }).split('\n');
    expect(full.filter((l) => l.includes('why Mission'))).toHaveLength(2);
    expect(lines.filter((l) => l.includes('why Mission'))).toHaveLength(1);
    expect(lines).toHaveLength(full.length - 1);
    // The workflow has two children, so it keeps its total; each step equals its only child.
    expect(lines[0]).toContain('2,000 in / 800 out tok');
    expect(lines[1]).toMatch(/^├─ ✓ first \[step\] \S+$/);
    expect(lines[2]).toMatch(/classifier: One \[agentPrompt\] .* · 1,000 in \/ 400 out tok/);
    expect(lines.find((l) => l.includes('second [step]'))).toMatch(/second \[step\] \S+$/);
  });
});

describe('toTreeString maxDepth', () => {
  it('stops at the given depth and counts what is below', async () => {
    const root = await fanOut();
    const dbg = new WorkflowTreeDebugger(root);
    expect(dbg.toTreeString(root.node, { maxDepth: 0 }).split('\n')).toEqual([
      expect.stringMatching(/^✓ triage \[workflow\]/),
      '   … 18 more nodes',
    ]);
    const one = dbg.toTreeString(root.node, { maxDepth: 1 }).split('\n');
    expect(one).toHaveLength(13);
    expect(one[1]).toMatch(/^├─ ✓ classify \[workflow\]/);
    expect(one[2]).toBe('│     … 2 more nodes');
    expect(one[12]).toBe('      … 2 more nodes');
    expect(dbg.toTreeString(root.node, { maxDepth: 3 })).toBe(dbg.toTreeString());
  });

  it('counts one node in the singular, and a leaf at the limit says nothing more', async () => {
    const wf = createWorkflow({ name: 'one', clock: new FakeClock() }, (ctx) => ctx.step('only', () => 1));
    await wf.run();
    const dbg = new WorkflowTreeDebugger(wf);
    expect(dbg.toTreeString(wf.node, { maxDepth: 0 }).split('\n')[1]).toBe('   … 1 more node');
    const only = must(wf.node.children[0], 'only');
    expect(dbg.toTreeString(only, { maxDepth: 0 })).toBe(dbg.toTreeString(only));
  });
});

describe('toTreeString width', () => {
  it('cuts long lines with … counting code points, never splitting a character', async () => {
    const clock = new FakeClock();
    const name = `🚀${'é'.repeat(10)}🚀${'x'.repeat(60)}`;
    const wf = createWorkflow({ name: 'w', clock }, (ctx) => ctx.step(name, () => clock.advance(5)));
    await wf.run();
    const dbg = new WorkflowTreeDebugger(wf);
    const lines = dbg.toTreeString(wf.node, { width: 20 }).split('\n');
    expect(lines[0]).toBe('✓ w [workflow] 5.0ms');
    expect(lines[1]).toBe(`└─ ✓ 🚀${'é'.repeat(10)}🚀xx…`);
    expect([...(lines[1] as string)]).toHaveLength(20);
    expect(lines[1]).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(dbg.toTreeString(wf.node, { width: 200 })).toBe(dbg.toTreeString());
  });
});

describe('toTreeString option checks', () => {
  it('refuses wrong options with a UsageError naming the option', async () => {
    const wf = await steps(false);
    const dbg = new WorkflowTreeDebugger(wf);
    const cases: Array<[unknown, RegExp]> = [
      [{ width: '80' }, /options\.width must be an integer >= 20, got "80"/],
      [{ width: 5 }, /options\.width must be an integer >= 20/],
      [{ maxDepth: -1 }, /options\.maxDepth must be an integer >= 0/],
      [{ maxDepth: 1.5 }, /options\.maxDepth/],
      [{ compact: 'yes' }, /options\.compact must be true or false/],
      [{ maxChildren: '3' }, /options\.maxChildren/],
      [{ compat: true }, /unknown key "compat" \(did you mean compact\?\)/],
      [42, /toTreeString: options must be an options object/],
    ];
    for (const [options, message] of cases) {
      const call = () => dbg.toTreeString(wf.node, options as never);
      expect(call, String(message)).toThrow(UsageError);
      expect(call, String(message)).toThrow(message);
    }
  });
});

describe('usageById and getStats().duration', () => {
  it('tells same-named siblings apart by id, and survives export and reload', async () => {
    const root = await fanOut();
    const byId = usageById(root.node);
    const rollup = usageRollup(root.node);
    expect(byId.size).toBe(rollup.size);
    for (const [node, usage] of rollup) expect(byId.get(node.id)).toEqual(usage);
    const children = root.node.children;
    expect(new Set(children.map((c) => c.name)).size).toBe(1);
    expect(new Set(children.map((c) => c.id)).size).toBe(6);
    for (const child of children) expect(byId.get(child.id)).toMatchObject({ inputTokens: 1_000, outputTokens: 400 });
    const loaded = WorkflowTreeDebugger.fromJSON(JSON.stringify(new WorkflowTreeDebugger(root).toJSON()));
    expect(usageById(loaded.getTree())).toEqual(byId);
  });

  it('rounds the stats duration to whole milliseconds; the node keeps full precision', async () => {
    const clock = new FakeClock();
    const wf = createWorkflow({ name: 'w', clock }, (ctx) => ctx.step('s', () => clock.advance(12.3456)));
    await wf.run();
    expect(wf.node.duration).toBeCloseTo(12.3456, 3);
    expect(new WorkflowTreeDebugger(wf).getStats().duration).toBe(12);
  });
});
