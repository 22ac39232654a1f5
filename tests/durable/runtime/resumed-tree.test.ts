import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, resume, WorkflowTreeDebugger, type Workflow, type WorkflowNode } from 'groundswell';
import type { RunStore } from 'groundswell/durable';
import { eachRunStore } from '../../support/run-store-kinds.js';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { agentModelSync } from '../../support/model-path.js';

let store: RunStore;

const Verdict = z.object({ kind: z.string() });
const commits = ['a11', 'b22', 'c33', 'd44'];

/** A fan-out of four classifications, each with a tool call; `crash` stops it once after the first two settled. */
function release(runId: string, crash: { at: number | undefined }): () => Workflow<string[]> {
  return () => {
    const model = new ScriptedModel((request) => (JSON.stringify(request.body.messages).includes('tool_result') ? json({ kind: 'fix' }) : toolUse('get_diff', {})));
    const diff = defineTool({ name: 'get_diff', description: 'the diff', input: z.object({}), execute: () => 'diff --git' });
    const classifier = createAgent({ name: 'classifier', ...agentModelSync(model), tools: [diff] });
    return createWorkflow({ name: 'Release', durable: { store, runId } }, async (ctx) => {
      const out: string[] = [];
      for (const [i, sha] of commits.entries()) {
        if (crash.at === i) {
          crash.at = undefined;
          throw new Error('killed');
        }
        out.push(await ctx.step(`classify ${sha}`, () => classifier.prompt(createPrompt({ user: `Classify ${sha}`, responseFormat: Verdict })).then((v) => v.kind)));
      }
      return out;
    });
  };
}

/** Depth, kind, name and status of every node: the tree's shape, without ids or times. */
function shape(node: WorkflowNode, depth = 0, out: string[] = []): string[] {
  out.push(`${'  '.repeat(depth)}${node.kind} ${node.name} ${node.status}`);
  for (const child of node.children) shape(child, depth + 1, out);
  return out;
}

eachRunStore((opened) => (store = opened), () => {
  describe('a resumed run keeps its agents\u2019 history', () => {
    it('replayed steps carry their agent and tool calls, and the usage rolls up as in the uninterrupted run', async () => {
      const whole = release('whole', { at: undefined })();
      await whole.run();
      const crash = { at: 2 as number | undefined };
      const build = release('resumed', crash);
      await expect(build().run()).rejects.toThrow(/killed/);
      await store.updateRun('resumed', { status: 'running', error: null });
      let resumedRoot: Workflow<string[]> | undefined;
      await resume('resumed', {
        store,
        workflows: {
          Release: () => {
            resumedRoot = build();
            return resumedRoot;
          },
        },
      });
      const again = resumedRoot as Workflow<string[]>;
      expect(shape(again.node)).toEqual(shape(whole.node));
      const usage = (wf: Workflow<string[]>) => new WorkflowTreeDebugger(wf).getStats().usage;
      expect(usage(again)).toEqual(usage(whole));
      // The stored tree (what `runs show` and the viewer load) holds the replayed agent calls too.
      const stored = new WorkflowTreeDebugger((await store.loadRun('resumed')).tree as never).toTreeString();
      expect(stored.match(/classifier/g)?.length).toBe(4);
      expect(stored.match(/get_diff/g)?.length).toBe(4);
      expect(stored).toContain('(replayed · ran in an earlier process)');
      // Every event of the resumed tree points at a node of that tree.
      const ids = new Set<string>();
      const events: Array<{ readonly nodeId: string }> = [];
      const walk = (node: WorkflowNode): void => {
        ids.add(node.id);
        events.push(...node.events);
        node.children.forEach(walk);
      };
      walk(again.node);
      expect(events.filter((event) => !ids.has(event.nodeId))).toEqual([]);
    });
  });

  describe('a run killed at any moment has a stored tree', () => {
    it('right after its first step settled (its first second), the store already holds a tree with that step', async () => {
      const seen: string[] = [];
      const wf = createWorkflow({ name: 'Early', durable: { store, runId: 'early' } }, async (ctx) => {
        await ctx.step('fetch', () => 'data');
        await ctx.step('look', async () => {
          // What a kill at this moment would leave for `groundswell runs show`.
          const tree = (await store.loadRun('early')).tree;
          if (tree !== undefined) seen.push(new WorkflowTreeDebugger(tree as never).toTreeString());
        });
        return 'done';
      });
      await wf.run();
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatch(/✓ fetch \[step\]/);
    });
  });
});
