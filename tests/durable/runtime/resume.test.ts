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
import { agentModelSync } from '../../support/model-path.js';

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
    const agent = createAgent({ name: 'counter', ...agentModelSync(model) });
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
    const agent = createAgent({ name: 'counter', ...agentModelSync(model) });
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
