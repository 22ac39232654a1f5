import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, resume, type Workflow } from 'groundswell';
import type { RunStore } from 'groundswell/durable';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { eachRunStore } from '../../support/run-store-kinds.js';
import { agentModelSync } from '../../support/model-path.js';

let store: RunStore;

const Answer = z.object({ n: z.number() });

eachRunStore((opened) => (store = opened), () => {
  const CHECKPOINT = {
    schemaVersion: 1,
    id: 'cp-1',
    revision: 3,
    turn: 4,
    trigger: 'tool result',
    assessment: 'verification_due',
    goal: 'fix the parser',
    completedWork: ['edited parser.ts'],
    groundedFacts: [{ statement: 'parser.ts has the fix', evidence: 'turn 3/tool_result', freshness: 'fresh' }],
    openQuestions: [],
    nextAction: 'run the tests',
    successEvidence: 'a passing test run',
    doNotRepeat: [],
  };

  describe('handoff on resume', () => {
    const Verdict = z.object({ kind: z.string() });
    const commits = ['a11', 'b22', 'c33', 'd44', 'e55', 'f66'];
    const fanOut = (runId: string, model: ScriptedModel) => (): Workflow<string[]> => {
      const classifier = createAgent({ name: 'classifier', ...agentModelSync(model) });
      return createWorkflow({ name: 'Release', durable: { store, runId } }, (ctx) =>
        Promise.all(
          commits.map((sha) =>
            ctx.step('classify', () => classifier.prompt(createPrompt({ user: `Classify commit ${sha}`, responseFormat: Verdict })).then((v) => `${sha}:${v.kind}`)),
          ),
        ),
      );
    };

    it('six children of one agent killed mid fan-out: only the call that saved a checkpoint gets it, and only its own', async () => {
      // An uninterrupted run gives the records the interrupted one had stored for its first three children.
      const done = await store.loadRun((await fanOut('whole', new ScriptedModel(() => json({ kind: 'fix' })))().run(), 'whole'));
      // In the order the code started them (the stores list them in the order they settled).
      const byKey = <R extends { key: string }>(records: R[]): R[] => [...records].sort((a, b) => a.key.localeCompare(b.key, 'en', { numeric: true }));
      done.steps = byKey(done.steps);
      done.calls = byKey(done.calls);
      const callKeys = done.calls.map((call) => call.key);
      expect(new Set(callKeys).size).toBe(6);
      await store.createRun({ id: 'killed', rootName: 'Release' });
      for (const step of done.steps.slice(0, 3)) await store.putStep('killed', step);
      for (const call of done.calls.slice(0, 3)) await store.putCall('killed', call);
      // The fourth child's call had saved a checkpoint when the process died; the fifth and sixth had not.
      const fourth = done.calls[3]?.key as string;
      await store.putData('killed', `checkpoint:${fourth}`, { ...CHECKPOINT, goal: 'Classify commit d44' });
      const model = new ScriptedModel(() => json({ kind: 'feat' }));
      const result = await resume<string[]>('killed', { store, workflows: { Release: fanOut('killed', model) } });
      expect(result).toEqual(['a11:fix', 'b22:fix', 'c33:fix', 'd44:feat', 'e55:feat', 'f66:feat']);
      expect(model.requests).toHaveLength(3);
      const handedOver = model.requests.filter((request) => JSON.stringify(request.body.system ?? null).includes('[RESTORED CHECKPOINT]'));
      expect(handedOver).toHaveLength(1);
      expect(JSON.stringify(handedOver[0]?.body.messages)).toContain('Classify commit d44');
      const system = JSON.stringify(handedOver[0]?.body.system);
      expect(system).toContain('Classify commit d44');
      expect(system).toContain('not as fresh evidence');
      expect(system).toContain('(stale)');
    });

    it('a call that completed before the interruption leaves nothing to hand over to the next call of its agent', async () => {
      const model = new ScriptedModel(() => json({ n: 1 }));
      const agent = createAgent({ name: 'planner', ...agentModelSync(model), trajectory: { checkpoint: 'always', grounding: 'off' } });
      let crash = true;
      const build = (): Workflow<number> =>
        createWorkflow({ name: 'Handoff', durable: { store, runId: 'h1' } }, async (ctx) => {
          const first = await ctx.step('first', () => agent.prompt(createPrompt({ user: 'first', responseFormat: Answer })));
          if (crash) {
            crash = false;
            throw new Error('crash');
          }
          const second = await ctx.step('second', () => agent.prompt(createPrompt({ user: 'second', responseFormat: Answer })));
          return first.n + second.n;
        });
      await expect(build().run()).rejects.toThrow(/crash/);
      await store.updateRun('h1', { status: 'running', error: null });
      // Keyed by agent name, as an earlier version stored it: no call has this key.
      await store.putData('h1', 'checkpoint:planner', CHECKPOINT);
      expect(await resume('h1', { store, workflows: { Handoff: build } })).toBe(2);
      expect(model.requests).toHaveLength(2);
      expect(JSON.stringify(model.requests[1]?.body.system ?? null)).not.toContain('[RESTORED CHECKPOINT]');
    });
  });

  describe('checkpoints kept for the handoff', () => {
    it('a live call keeps its latest checkpoint under its own call key while it runs', async () => {
      const seen: string[][] = [];
      const peek = defineTool({
        name: 'peek',
        description: 'looks',
        input: z.object({}),
        execute: async () => {
          // What the store holds while the call runs. A checkpoint is written as soon as it is
          // made, without holding the call up: on a busy machine a database write may still be
          // on its way, so the second look (a checkpoint was made after the first) waits for it.
          // The call cannot end meanwhile: it awaits this tool.
          const second = seen.length > 0;
          for (;;) {
            const keys = Object.keys((await store.loadRun('cp')).data).filter((name) => name.startsWith('checkpoint:'));
            if (!second || keys.length > 0) {
              seen.push(keys);
              return 'looked';
            }
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        },
      });
      const model = new ScriptedModel([toolUse('peek', {}), toolUse('peek', {}), json({ n: 1 })]);
      const agent = createAgent({ name: 'planner', ...agentModelSync(model), tools: [peek], trajectory: { checkpoint: 'always', grounding: 'off' } });
      const wf = createWorkflow({ name: 'Cp', durable: { store, runId: 'cp' } }, (ctx) => ctx.step('plan', () => agent.prompt(createPrompt({ user: 'plan', responseFormat: Answer }))));
      await wf.run();
      expect(seen.at(-1)).toEqual([expect.stringMatching(/^checkpoint:.*\/agent:planner#0$/)]);
    });
  });
});
