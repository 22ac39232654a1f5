import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, progressDisplay, type ProgressDisplayOptions } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { ProgressState } from '../../src/progress/progress-state.js';
import { eventsOfType, record } from '../support/events.js';

const ESC = '\x1b';

/** A terminal stand-in: what was written, in writes. */
class FakeStream {
  readonly writes: string[] = [];
  constructor(
    readonly isTTY: boolean,
    readonly columns = 120,
  ) {}
  write(text: string): boolean {
    this.writes.push(text);
    return true;
  }
  get text(): string {
    return this.writes.join('');
  }
  /** The screen as a person would see it: the region redrawn in place leaves only its last drawing. */
  get screen(): string[] {
    const lines: string[] = [];
    let row = 0;
    for (const write of this.writes) {
      // Cursor up n, then rows rewritten one by one (each cleared first).
      let rest = write;
      const up = new RegExp(`^${ESC}\\[(\\d+)A\\r`).exec(rest);
      if (up !== null) {
        row -= Number(up[1]);
        rest = rest.slice(up[0].length);
      }
      for (const part of rest.split('\n').slice(0, -1)) {
        lines[row] = part.replaceAll(`${ESC}[2K`, '').replaceAll(`${ESC}[0J`, '');
        row += 1;
      }
      if (rest.endsWith(`${ESC}[0J`)) lines.length = row;
    }
    return lines.slice(0, row);
  }
}

/** A timer the test ticks by hand, and a clock it moves. */
function manual(): { options: Pick<ProgressDisplayOptions, 'timer' | 'clock'>; tick(ms?: number): void; active(): boolean; periods: number[] } {
  let now = 1_000;
  let tick: (() => void) | undefined;
  const periods: number[] = [];
  return {
    options: {
      clock: { now: () => now },
      timer: (fn, ms) => {
        tick = fn;
        periods.push(ms);
        return () => {
          tick = undefined;
        };
      },
    },
    tick(ms = 100) {
      now += ms;
      tick?.();
    },
    active: () => tick !== undefined,
    periods,
  };
}

const Answer = z.object({ answer: z.string() });

describe('progressDisplay on a TTY', () => {
  it('draws one region in place and leaves a final summary with counts by kind, tokens and cost', async () => {
    const stream = new FakeStream(true);
    const time = manual();
    const progress = progressDisplay({ stream, ...time.options });
    const model = new ScriptedModel([json({ answer: 'a' }), json({ answer: 'b' })]);
    const agent = createAgent({ name: 'writer', model: 'claude-test', client: model.client(), pricing: { 'claude-test': { inputPerMTok: 3, outputPerMTok: 15 } } });
    const workflow = createWorkflow({ name: 'Report' }, async (ctx) => {
      await ctx.step('draft', () => agent.prompt(createPrompt({ user: 'draft', responseFormat: Answer })));
      time.tick();
      await ctx.step('polish', () => agent.prompt(createPrompt({ user: 'polish', responseFormat: Answer })));
      await ctx.step('publish', async () => {
        time.tick();
        throw new Error('offline');
      }).catch(() => undefined);
      return 'done';
    });
    workflow.addObserver(progress);
    const recording = record(workflow);
    await workflow.run();
    const ends = eventsOfType(recording.events, 'agentPromptEnd');
    const input = ends.reduce((sum, end) => sum + end.usage.inputTokens + end.usage.cacheCreationInputTokens + end.usage.cacheReadInputTokens, 0);
    const output = ends.reduce((sum, end) => sum + end.usage.outputTokens, 0);
    const cost = ends.reduce((sum, end) => sum + (end.usage.costUsd ?? 0), 0);
    expect(input).toBeGreaterThan(0);

    expect(stream.text).toContain(`${ESC}[2K`);
    expect(stream.text).toMatch(new RegExp(`${ESC}\\[3A`));
    const screen = stream.screen;
    expect(screen).toHaveLength(2);
    expect(screen[0]).toBe(`✓ Report completed 0.2s · tokens ${input} in / ${output} out · $${cost.toFixed(4)}`);
    expect(screen[1]).toBe('  workflows 1 done · steps 2 done, 1 failed · agent calls 2 done');
    expect(time.active()).toBe(false);
  });

  it('names the oldest running steps and agent calls, at most maxRunning of them', () => {
    const stream = new FakeStream(true);
    const time = manual();
    const progress = progressDisplay({ stream, maxRunning: 2, ...time.options });
    let id = 0;
    const event = (type: string, fields: Record<string, unknown>, nodeId: string) =>
      progress.onEvent({ id: ++id, nodeId, workflowId: 'w', timestamp: 0, type, ...fields } as never);
    event('workflowStart', { name: 'Fan' }, 'root');
    for (const name of ['a', 'b', 'c', 'd']) event('stepStart', { name }, name);
    event('agentPromptStart', { agentName: 'critic', model: 'm', promptId: 'p' }, 'call');
    time.tick();
    expect(stream.screen[2]).toBe('  running: a, b (+3 more)');
    event('stepEnd', { name: 'a', status: 'completed', attempts: 1, duration: 5 }, 'a');
    event('stepEnd', { name: 'b', status: 'completed', attempts: 1, duration: 5 }, 'b');
    time.tick();
    expect(stream.screen[1]).toBe('  workflows 1 running · steps 2 running, 2 done · agent calls 1 running');
    expect(stream.screen[2]).toBe('  running: c, d (+1 more)');
    progress.stop();
  });

  it('names the workflow of a running node when it is not the root', () => {
    const stream = new FakeStream(true);
    const time = manual();
    const progress = progressDisplay({ stream, ...time.options });
    let id = 0;
    const event = (type: string, fields: Record<string, unknown>, nodeId: string, workflowId: string) =>
      progress.onEvent({ id: ++id, nodeId, workflowId, timestamp: 0, type, ...fields } as never);
    event('workflowStart', { name: 'Inbox' }, 'root', 'root');
    event('stepStart', { name: 'load' }, 'load', 'root');
    event('workflowStart', { name: 'Triage' }, 'tri', 'tri');
    event('stepStart', { name: 'fetch' }, 'fetch', 'tri');
    event('agentPromptStart', { agentName: 'sorter', model: 'm', promptId: 'p' }, 'call', 'tri');
    time.tick();
    expect(stream.screen[2]).toBe('  running: load, fetch (in Triage), agent sorter (in Triage)');
    progress.stop();
  });

  it('redraws at most once per interval however many events arrive, and not at all when nothing changed', () => {
    const stream = new FakeStream(true);
    const time = manual();
    const progress = progressDisplay({ stream, intervalMs: 100, ...time.options });
    let id = 0;
    const event = (type: string, fields: Record<string, unknown>, nodeId: string) =>
      progress.onEvent({ id: ++id, nodeId, workflowId: 'w', timestamp: 0, type, ...fields } as never);
    event('workflowStart', { name: 'Busy' }, 'root');
    expect(time.periods).toEqual([100]);
    expect(stream.writes).toHaveLength(1); // the first drawing, at once
    for (let i = 0; i < 5_000; i += 1) {
      event('stepStart', { name: `s${i}` }, `s${i}`);
      event('stepEnd', { name: `s${i}`, status: 'completed', attempts: 1, duration: 1 }, `s${i}`);
    }
    expect(stream.writes).toHaveLength(1);
    time.tick();
    expect(stream.writes).toHaveLength(2);
    expect(stream.screen[1]).toBe('  workflows 1 running · steps 5000 done');
    time.tick(0); // same elapsed time, nothing new
    expect(stream.writes).toHaveLength(2);
    progress.stop();
    progress.stop();
    time.tick();
    event('stepStart', { name: 'late' }, 'late');
    expect(stream.writes).toHaveLength(2);
    expect(time.active()).toBe(false);
  });
});

describe('progressDisplay elsewhere (a pipe, CI)', () => {
  it('prints plain lines without escape codes: finished workflows, failures, periodic summaries and a last one', async () => {
    const stream = new FakeStream(false);
    const time = manual();
    const progress = progressDisplay({ stream, summaryMs: 5_000, ...time.options });
    const workflow = createWorkflow({ name: 'Nightly' }, async (ctx) => {
      for (let i = 0; i < 3; i += 1) await ctx.step(`load-${i}`, async () => i);
      time.tick(5_000);
      time.tick(5_000); // nothing new since the last summary: no line
      await ctx.spawnWorkflow(createWorkflow({ name: 'Child' }, (child) => child.step('inner', async () => 1)));
      await ctx.step('flaky', async () => {
        throw new Error('no');
      }).catch(() => undefined);
      return 1;
    });
    workflow.addObserver(progress);
    await workflow.run();
    expect(time.periods).toEqual([5_000]);
    expect(stream.text).not.toContain(ESC);
    expect(stream.text.split('\n').filter(Boolean)).toEqual([
      '[progress 5.0s] workflows 1 running · steps 3 done · tokens 0 in / 0 out',
      expect.stringMatching(/^✓ workflow Child completed in \d+\.\ds$/),
      expect.stringMatching(/^✗ step flaky failed in \d+\.\ds$/),
      expect.stringMatching(/^✓ workflow Nightly completed in \d+\.\ds$/),
      '[progress 10.0s] workflows 2 done · steps 4 done, 1 failed · tokens 0 in / 0 out',
    ]);
  });

  it('a cancelled run ends with its status and stops its timer; a failed one too', async () => {
    for (const ending of ['cancelled', 'failed'] as const) {
      const stream = new FakeStream(false);
      const time = manual();
      const progress = progressDisplay({ stream, ...time.options });
      const workflow = createWorkflow({ name: 'Doomed' }, async (ctx) => {
        await ctx.step('one', async () => 1);
        await ctx.step('two', async () => {
          if (ending === 'cancelled') workflow.cancel('user pressed stop');
          else throw new Error('broken');
        });
        await ctx.step('three', async () => 3);
      });
      workflow.addObserver(progress);
      await workflow.run().catch(() => undefined);
      expect(time.active()).toBe(false);
      const lines = stream.text.split('\n').filter(Boolean);
      expect(lines.at(-2)).toMatch(ending === 'cancelled' ? /^⊘ workflow Doomed cancelled/ : /^✗ workflow Doomed failed/);
      expect(lines.at(-1)).toMatch(/^\[progress /);
      expect(lines.at(-1)).not.toContain('running');
    }
  });

  it('shows names as the run masks them: a secret never reaches the terminal', async () => {
    const SECRET = 'sk-live-7f3a9c2e1b';
    const stream = new FakeStream(false);
    const progress = progressDisplay({ stream, ...manual().options });
    const model = new ScriptedModel([json({ answer: 'ok' })]);
    const agent = createAgent({ name: 'deployer', client: model.client(), env: { DEPLOY_TOKEN: SECRET } });
    const workflow = createWorkflow({ name: 'Deploy' }, async (ctx) => {
      await ctx.step('auth', () => agent.prompt(createPrompt({ user: 'auth', responseFormat: Answer })));
      await ctx.step(`push with ${SECRET}`, async () => {
        throw new Error('rejected');
      }).catch(() => undefined);
    });
    workflow.addObserver(progress);
    await workflow.run();
    expect(stream.text).toContain('✗ step push with ***');
    expect(stream.text).not.toContain(SECRET);
  });
});

describe('progress state', () => {
  it('a 10,000-step run keeps only what is running: nothing of a finished node is retained', async () => {
    const state = new ProgressState();
    let mostHeld = 0;
    const stream = new FakeStream(true);
    const time = manual();
    const progress = progressDisplay({ stream, ...time.options });
    const workflow = createWorkflow({ name: 'Long' }, async (ctx) => {
      for (let i = 0; i < 10_000; i += 1) {
        await ctx.step(`step-${i}`, async () => i);
        if (i % 1000 === 0) time.tick();
      }
    });
    workflow.addObserver(progress);
    workflow.addObserver({
      onEvent: (event) => {
        state.apply(event);
        mostHeld = Math.max(mostHeld, state.running.size);
      },
    });
    await workflow.run();
    expect(mostHeld).toBe(2); // the root and the one step running
    expect(state.running.size).toBe(0);
    expect(state.counts.step).toEqual({ running: 0, done: 10_000, failed: 0, cancelled: 0, suspended: 0 });
    expect(stream.screen[1]).toBe('  workflows 1 done · steps 10000 done');
  }, 30_000);
});
