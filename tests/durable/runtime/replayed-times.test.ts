import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, isSuspension, signal, WorkflowTreeDebugger, type Workflow, type WorkflowNode } from 'groundswell';
import type { RunStore } from 'groundswell/durable';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { eachRunStore } from '../../support/run-store-kinds.js';
import { FakeClock } from '../../support/fake-clock.js';
import { agentModelSync } from '../../support/model-path.js';

let store: RunStore;

const Verdict = z.object({ kind: z.string() });
const Review = z.object({ note: z.string() });
const MARK = '(replayed · ran in an earlier process)';

/**
 * A slow step holding an agent call with a tool call (each part taking its own time on the fake
 * clock), then a step whose agent call completes before it waits for "go": the run suspends there,
 * so on resume the first step replays and the second runs again with its call replayed.
 */
function slowRun(clock: FakeClock): () => Workflow<string> {
  return () => {
    const model = new ScriptedModel((request) => {
      const text = JSON.stringify(request.body.messages);
      if (text.includes('Review')) {
        clock.advance(400);
        return json({ note: 'fine' });
      }
      if (text.includes('tool_result')) {
        clock.advance(1_200);
        return json({ kind: 'fix' });
      }
      clock.advance(300);
      return toolUse('get_diff', {});
    });
    const diff = defineTool({
      name: 'get_diff',
      description: 'the diff',
      input: z.object({}),
      execute: () => {
        clock.advance(200);
        return 'diff --git';
      },
    });
    const classifier = createAgent({ name: 'classifier', ...agentModelSync(model), tools: [diff] });
    const reviewer = createAgent({ name: 'reviewer', ...agentModelSync(model) });
    return createWorkflow({ name: 'Slow', clock, durable: { store, runId: 'slow' } }, async (ctx) => {
      clock.advance(5);
      const kind = await ctx.step('classify', async () => {
        clock.advance(100);
        const verdict = await classifier.prompt(createPrompt({ user: 'Classify a11', responseFormat: Verdict }));
        clock.advance(200);
        return verdict.kind;
      });
      const note = await ctx.step('review', async () => {
        const review = await reviewer.prompt(createPrompt({ user: `Review ${kind}`, responseFormat: Review }));
        await ctx.waitFor('go', z.literal('go'));
        return review.note;
      });
      return `${kind}: ${note}`;
    });
  };
}

function find(root: WorkflowNode, kind: string, name: string): WorkflowNode {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop() as WorkflowNode;
    if (node.kind === kind && node.name === name) return node;
    stack.push(...node.children);
  }
  throw new Error(`no ${kind} node named ${name}`);
}

/** `node` and every node beneath it. */
function subtree(node: WorkflowNode): WorkflowNode[] {
  const out: WorkflowNode[] = [];
  const stack = [node];
  while (stack.length > 0) {
    const at = stack.pop() as WorkflowNode;
    out.push(at);
    stack.push(...at.children);
  }
  return out;
}

/** The events beneath `step` (not its own), in id order, as `type@node`. */
function eventsBelow(step: WorkflowNode): string[] {
  const events = step.children.flatMap(subtree).flatMap((node) => node.events.map((event) => ({ event, name: node.name })));
  return events.sort((a, b) => a.event.id - b.event.id).map(({ event, name }) => `${event.type}@${name}`);
}

function times(node: WorkflowNode): { start: number | undefined; end: number | undefined; duration: number | undefined } {
  return { start: node.startTime, end: node.endTime, duration: node.duration };
}

function replayedMark(node: WorkflowNode): unknown {
  return (node as { readonly replayed?: unknown }).replayed;
}

/**
 * Nodes outside their parent's time span. Only a replayed node inside a part that ran again in
 * this process (a live step) may start before it: it ran in an earlier process.
 */
function unnested(root: WorkflowNode): string[] {
  const out: string[] = [];
  for (const node of subtree(root)) {
    const parent = node.parent;
    if (parent === null || (replayedMark(node) === true && replayedMark(parent) !== true && parent.kind !== 'workflow')) continue;
    if ((node.startTime ?? 0) < (parent.startTime ?? 0) || (node.endTime ?? 0) > (parent.endTime ?? Infinity)) out.push(`${node.name} in ${parent.name}`);
  }
  return out;
}

eachRunStore((opened) => (store = opened), () => {
  describe('replayed parts keep their own time', () => {
    it('a replayed step, what it held, and a call replayed in a live step show when they ran; the root spans from the first start', async () => {
      const clock = new FakeClock();
      const first = slowRun(clock)();
      expect(isSuspension(await first.run().catch((error: unknown) => error))).toBe(true);
      const classify = find(first.node, 'step', 'classify');
      const classifierCall = find(classify, 'agentPrompt', 'classifier: Classify a11');
      const reviewCall = find(first.node, 'agentPrompt', 'reviewer: Review fix');
      // The slow parts really took their time in the first process.
      expect(classify.duration).toBe(2_000);
      expect(classifierCall.duration).toBe(1_700);
      expect(reviewCall.duration).toBe(400);

      clock.advance(3_600_000);
      let again: Workflow<string> | undefined;
      const result = await signal('slow', 'go', 'go', {
        store,
        workflows: {
          Slow: () => {
            again = slowRun(clock)();
            return again;
          },
        },
      });
      expect(result).toBe('fix: fine');
      const resumed = (again as Workflow<string>).node;

      expect(resumed.startTime).toBe(first.node.startTime);
      const replayedStep = find(resumed, 'step', 'classify');
      expect(times(replayedStep)).toEqual(times(classify));
      expect(times(find(replayedStep, 'agentPrompt', 'classifier: Classify a11'))).toEqual(times(classifierCall));
      expect(times(find(replayedStep, 'toolCall', 'get_diff'))).toEqual(times(find(classify, 'toolCall', 'get_diff')));
      // The review step ran again in this process; its call was served from the store.
      const liveStep = find(resumed, 'step', 'review');
      expect(replayedMark(liveStep)).not.toBe(true);
      const replayedCall = find(liveStep, 'agentPrompt', 'reviewer: Review fix');
      expect(times(replayedCall)).toEqual(times(reviewCall));
      // It began in the earlier process (its call ran there) and ended in this one.
      expect(liveStep.startTime).toBe(replayedCall.startTime);
      expect(liveStep.endTime).toBeGreaterThan(clock.now() - 3_000);
      expect(replayedMark(replayedCall)).toBe(true);

      expect(unnested(resumed)).toEqual([]);

      // The replayed step and every node it held are marked, in the tree and in its export.
      const held = subtree(replayedStep);
      expect(held.map((node) => [node.kind, node.name, replayedMark(node)])).toEqual(held.map((node) => [node.kind, node.name, true]));
      expect(held.map((node) => node.toJSON()).every((json) => (json as { replayed?: unknown }).replayed === true)).toBe(true);

      // Grafted events are numbered in the order they happened: the call ends after its tool call.
      const order = eventsBelow(replayedStep);
      expect(order).toEqual(eventsBelow(classify));
      expect(order.indexOf('toolInvocation@get_diff')).toBeLessThan(order.indexOf('agentPromptEnd@classifier: Classify a11'));

      // The stored records keep when each part ran.
      const loaded = await store.loadRun('slow');
      const step = loaded.steps.find((record) => record.key.endsWith(':classify#0'));
      expect([step?.startedAt, step?.endedAt]).toEqual([classify.startTime, classify.endTime]);
      const call = loaded.calls.find((record) => record.key.includes('agent:reviewer'));
      expect([call?.startedAt, call?.endedAt]).toEqual([reviewCall.startTime, reviewCall.endTime]);
    });

    it('a child workflow run again around a replayed step starts no later than that step did', async () => {
      const clock = new FakeClock();
      const build = (): Workflow<number> =>
        createWorkflow({ name: 'Parent', clock, durable: { store, runId: 'nested' } }, async () => {
          clock.advance(50);
          const child = createWorkflow({ name: 'Child', clock }, async (ctx) => {
            const rows = await ctx.step('load', () => {
              clock.advance(700);
              return 2;
            });
            await ctx.waitFor('go', z.literal('go'));
            return rows;
          });
          return child.run();
        });
      const first = build();
      expect(isSuspension(await first.run().catch((error: unknown) => error))).toBe(true);
      const load = find(first.node, 'step', 'load');
      clock.advance(3_600_000);
      let again: Workflow<number> | undefined;
      await signal('nested', 'go', 'go', {
        store,
        workflows: {
          Parent: () => {
            again = build();
            return again;
          },
        },
      });
      const resumed = (again as Workflow<number>).node;
      const replayed = find(resumed, 'step', 'load');
      expect(times(replayed)).toEqual(times(load));
      expect(find(resumed, 'workflow', 'Child').startTime).toBe(load.startTime);
      expect(resumed.startTime).toBe(first.node.startTime);
      expect(unnested(resumed)).toEqual([]);
    });

    it('the debugger marks replayed nodes, live and in the stored tree, and leaves the live step unmarked', async () => {
      const clock = new FakeClock();
      expect(isSuspension(await slowRun(clock)().run().catch((error: unknown) => error))).toBe(true);
      let again: Workflow<string> | undefined;
      await signal('slow', 'go', 'go', {
        store,
        workflows: {
          Slow: () => {
            again = slowRun(clock)();
            return again;
          },
        },
      });
      const stored = (await store.loadRun('slow')).tree;
      for (const text of [new WorkflowTreeDebugger(again as Workflow<string>).toTreeString(), new WorkflowTreeDebugger(stored as never).toTreeString()]) {
        const line = (name: string): string => text.split('\n').find((l) => l.includes(` ${name} [`)) ?? '';
        expect(line('classify')).toContain('2.00s');
        expect(line('classify')).toContain(MARK);
        expect(line('classifier: Classify a11')).toContain('1.70s');
        expect(line('classifier: Classify a11')).toContain(MARK);
        expect(line('get_diff')).toContain(MARK);
        expect(line('reviewer: Review fix')).toContain(MARK);
        expect(line('review')).not.toContain('replayed');
      }
    });
  });
});
