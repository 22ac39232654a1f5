import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  defineTool,
  isSuspension,
  resume,
  RunFinishedError,
  signal,
  SignalValueError,
  Step,
  Workflow,
  type WorkflowContext,
} from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';

let dir: string;
let store: JournalRunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-replay-'));
  store = new JournalRunStore({ dir, fsync: 'off' });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const Answer = z.object({ n: z.number() });

describe('resume', () => {
  it('serves settled steps and completed agent calls from the store after an interruption', async () => {
    const model = new ScriptedModel(() => json({ n: 7 }));
    const agent = createAgent({ name: 'counter', client: model.client() });
    const sideEffects: string[] = [];
    let crashAt = 3;
    const build = (): Workflow<number> =>
      createWorkflow({ name: 'Pipeline', durable: { store, runId: 'r1' } }, async (ctx: WorkflowContext) => {
        let total = 0;
        for (let i = 0; i < 5; i += 1) {
          total += await ctx.step(`s${i}`, async () => {
            sideEffects.push(`s${i}`);
            if (i === crashAt) throw new Error('the process died here');
            const answer = await agent.prompt(createPrompt({ user: `step ${i}`, responseFormat: Answer }));
            return answer.n + i;
          });
        }
        return total;
      });
    await expect(build().run()).rejects.toThrow(/the process died here/);
    // A crash leaves the run "running"; here it failed, so resume refuses it.
    await expect(resume('r1', { store, workflows: { Pipeline: build } })).rejects.toBeInstanceOf(RunFinishedError);
    expect(model.requests).toHaveLength(3);
  });

  it('resumes a run left running by a dead process, without repeating a step or a model request', async () => {
    const model = new ScriptedModel(() => json({ n: 1 }));
    const agent = createAgent({ name: 'counter', client: model.client() });
    const sideEffects: string[] = [];
    let die = true;
    const build = (): Workflow<number> =>
      createWorkflow({ name: 'Pipeline', durable: { store, runId: 'r2', leaseMs: 1_000 } }, async (ctx: WorkflowContext) => {
        let total = 0;
        for (let i = 0; i < 4; i += 1) {
          total += await ctx.step(`s${i}`, async () => {
            sideEffects.push(`s${i}`);
            const answer = await agent.prompt(createPrompt({ user: `step ${i}`, responseFormat: Answer }));
            return answer.n + i;
          });
          if (i === 1 && die) {
            die = false;
            // What a SIGKILL leaves: the run "running", its lease held until it expires.
            await store.updateRun('r2', { status: 'running' });
            throw Object.assign(new Error('killed'), { simulatedKill: true });
          }
        }
        return total;
      });
    await expect(build().run()).rejects.toThrow(/killed/);
    await store.updateRun('r2', { status: 'running', error: null });
    const result = await resume<number>('r2', { store, workflows: { Pipeline: build } });
    expect(result).toBe(1 + 1 + 1 + 2 + 1 + 3 + 1 + 0);
    expect(sideEffects).toEqual(['s0', 's1', 's2', 's3']);
    expect(model.requests).toHaveLength(4);
    expect((await store.getRun('r2'))?.status).toBe('completed');
  });
});

describe('waitFor and signal', () => {
  class Approval extends Workflow<string> {
    constructor() {
      super({ name: 'Approval', durable: { store, runId: 'a1' } });
    }
    @Step()
    async draft(): Promise<string> {
      return 'draft v1';
    }
    @Step()
    async publish(text: string, by: string): Promise<string> {
      return `${text} approved by ${by}`;
    }
    override async run(): Promise<string> {
      const text = await this.draft();
      const decision = await this.waitFor('approval', z.object({ approved: z.boolean(), by: z.string().min(1) }));
      return decision.approved ? this.publish(text, decision.by) : 'rejected';
    }
  }

  it('suspends, refuses a bad signal without storing it, and resumes with a good one', async () => {
    const error = await new Approval().run().catch((e: unknown) => e);
    expect(isSuspension(error)).toBe(true);
    expect((await store.getRun('a1'))?.status).toBe('suspended');
    expect((await store.getRun('a1'))?.waitingFor?.name).toBe('approval');

    await expect(signal('a1', 'approval', { approved: true, by: '' }, { store })).rejects.toBeInstanceOf(SignalValueError);
    expect((await store.loadRun('a1')).signals).toHaveLength(0);

    const result = await signal('a1', 'approval', { approved: true, by: 'ada' }, { store, workflows: { Approval: () => new Approval() } });
    expect(result).toBe('draft v1 approved by ada');
    expect((await store.getRun('a1'))?.status).toBe('completed');
  });

  it('refuses waitFor outside a durable run with a clear error', async () => {
    const wf = createWorkflow({ name: 'Plain' }, (ctx) => ctx.waitFor('x', z.string()));
    await expect(wf.run()).rejects.toThrow(/only a durable run can wait/);
  });
});

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
    const classifier = createAgent({ name: 'classifier', client: model.client() });
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
    const agent = createAgent({ name: 'planner', client: model.client(), trajectory: { checkpoint: 'always', grounding: 'off' } });
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
        // What a kill at this moment would leave in the store.
        seen.push(Object.keys((await store.loadRun('cp')).data).filter((name) => name.startsWith('checkpoint:')));
        return 'looked';
      },
    });
    const model = new ScriptedModel([toolUse('peek', {}), toolUse('peek', {}), json({ n: 1 })]);
    const agent = createAgent({ name: 'planner', client: model.client(), tools: [peek], trajectory: { checkpoint: 'always', grounding: 'off' } });
    const wf = createWorkflow({ name: 'Cp', durable: { store, runId: 'cp' } }, (ctx) => ctx.step('plan', () => agent.prompt(createPrompt({ user: 'plan', responseFormat: Answer }))));
    await wf.run();
    expect(seen.at(-1)).toEqual([expect.stringMatching(/^checkpoint:.*\/agent:planner#0$/)]);
  });
});
