import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
  ReplayedStepError,
  ReplayMismatchError,
  resume,
  signal,
  SignalValueError,
  type Workflow,
} from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { agentModelSync } from '../../support/model-path.js';

let dir: string;
let store: JournalRunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-fidelity-'));
  store = new JournalRunStore({ dir, fsync: 'off' });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What a killed process leaves: the run `running`. */
async function interrupt(runId: string): Promise<void> {
  await store.updateRun(runId, { status: 'running', error: null });
}

describe('a bad signal never fails a run', () => {
  // A refinement: the JSON Schema form kept with the run cannot check it, only the real schema can.
  const Approval = z.object({ by: z.string().refine((s) => s.endsWith('@example.com'), 'must be a company address') });
  const build = (): Workflow<string> =>
    createWorkflow({ name: 'Approve', durable: { store, runId: 'ap' } }, async (ctx) => {
      const decision = await ctx.waitFor('approval', Approval);
      return `approved by ${decision.by}`;
    });

  it('a value only the real schema refuses: stored, rejected by the resume (event), and the run still waits', async () => {
    expect(isSuspension(await build().run().catch((e: unknown) => e))).toBe(true);
    // Passes the JSON Schema form (a string), so it is stored.
    await signal('ap', 'approval', { by: 'mallory@evil.test' }, { store });
    const resumed = await resume('ap', { store, workflows: { Approve: build } }).catch((e: unknown) => e);
    expect(isSuspension(resumed)).toBe(true);
    const run = await store.getRun('ap');
    expect(run?.status).toBe('suspended');
    expect(run?.waitingFor?.name).toBe('approval');
    const events = (await store.readEvents('ap')).map((e) => e.event as { type: string; reason?: string });
    expect(events.find((e) => e.type === 'signalRejected')?.reason).toContain('must be a company address');
    // A good value afterwards completes the run.
    await signal('ap', 'approval', { by: 'ada@example.com' }, { store });
    expect(await resume('ap', { store, workflows: { Approve: build } })).toBe('approved by ada@example.com');
  });

  it('with the workflows passed, signal() itself gets SignalValueError and the run stays suspended', async () => {
    expect(isSuspension(await build().run().catch((e: unknown) => e))).toBe(true);
    const refused = await signal('ap', 'approval', { by: 'mallory@evil.test' }, { store, workflows: { Approve: build } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SignalValueError);
    expect((refused as Error).message).toContain('must be a company address');
    expect((await store.getRun('ap'))?.status).toBe('suspended');
    expect(await signal('ap', 'approval', { by: 'ada@example.com' }, { store, workflows: { Approve: build } })).toBe('approved by ada@example.com');
    expect((await store.getRun('ap'))?.status).toBe('completed');
  });

  it('a wait whose schema throws on the value rejects it instead of failing the run', async () => {
    const throwing = z.string().refine(() => {
      throw new Error('validator crashed');
    });
    const wf = (): Workflow<string> => createWorkflow({ name: 'Crashy', durable: { store, runId: 'cr' } }, (ctx) => ctx.waitFor('go', throwing));
    expect(isSuspension(await wf().run().catch((e: unknown) => e))).toBe(true);
    const refused = await signal('cr', 'go', 'x', { store, workflows: { Crashy: wf } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SignalValueError);
    expect((await store.getRun('cr'))?.status).toBe('suspended');
  });
});

describe('a changed answer schema', () => {
  it('is a ReplayMismatchError even when the stored answer still parses with it', async () => {
    const model = new ScriptedModel(() => json({ n: 3 }));
    const agent = createAgent({ name: 'counter', ...agentModelSync(model) });
    let schema: z.ZodType<{ n: number }> = z.object({ n: z.number() });
    let crash = true;
    const build = (): Workflow<number> =>
      createWorkflow({ name: 'Count', durable: { store, runId: 'sc' } }, async (ctx) => {
        const answer = await agent.prompt(createPrompt({ user: 'count', responseFormat: schema }));
        if (crash) {
          crash = false;
          throw new Error('crash');
        }
        return ctx.step('use', () => answer.n);
      });
    await expect(build().run()).rejects.toThrow(/crash/);
    await interrupt('sc');
    // Still parses { n: 3 }, but it is not the schema the answer was given for.
    schema = z.object({ n: z.number().int().min(0) });
    const error = await resume('sc', { store, workflows: { Count: build } }).catch((e: unknown) => e);
    expect((error as { cause?: unknown }).cause).toBeInstanceOf(ReplayMismatchError);
    expect(model.requests).toHaveLength(1);
  });
});

class CardDeclined extends Error {
  override name = 'CardDeclined';
  readonly code = 'E_CARD';
  constructor(
    message: string,
    readonly declineCode: string,
    readonly retryAfter: { seconds: number },
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

describe('a failed step replays with the same error shape', () => {
  it('name, message, code, own fields and cause chain are what the catch saw the first time', async () => {
    const seen: unknown[] = [];
    let crash = true;
    const build = (): Workflow<string> =>
      createWorkflow({ name: 'Checkout', durable: { store, runId: 'co' } }, async (ctx) => {
        let outcome: string;
        try {
          await ctx.step('charge', () => {
            throw new CardDeclined('card ending 4242 declined', 'insufficient_funds', { seconds: 30 }, { cause: Object.assign(new Error('gateway said 402'), { code: 402 }) });
          });
          outcome = 'charged';
        } catch (error) {
          const cause = (error as { cause?: Record<string, unknown> }).cause ?? {};
          const inner = (cause.cause ?? {}) as Record<string, unknown>;
          seen.push({
            message: (error as Error).message,
            name: cause.name,
            causeMessage: cause.message,
            code: cause.code,
            declineCode: cause.declineCode,
            retryAfter: cause.retryAfter,
            innerMessage: inner.message,
            innerCode: inner.code,
          });
          outcome = cause.name === 'CardDeclined' && cause.code === 'E_CARD' ? 'ask for another card' : 'page the on-call';
        }
        if (crash) {
          crash = false;
          throw new Error('crash');
        }
        return outcome;
      });
    await expect(build().run()).rejects.toThrow(/crash/);
    await interrupt('co');
    const resumed = await resume('co', { store, workflows: { Checkout: build } });
    expect(resumed).toBe('ask for another card');
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[0]).toMatchObject({ name: 'CardDeclined', code: 'E_CARD', declineCode: 'insufficient_funds', innerCode: 402 });
  });

  it('the replayed cause is a ReplayedStepError (the class cannot be stored)', async () => {
    let caught: unknown;
    let crash = true;
    const build = (): Workflow<void> =>
      createWorkflow({ name: 'Once', durable: { store, runId: 'once' } }, async (ctx) => {
        await ctx
          .step('boom', () => {
            throw new CardDeclined('declined', 'x', { seconds: 1 });
          })
          .catch((error: unknown) => (caught = (error as { cause?: unknown }).cause));
        if (crash) {
          crash = false;
          throw new Error('crash');
        }
      });
    await expect(build().run()).rejects.toThrow(/crash/);
    expect(caught).toBeInstanceOf(CardDeclined);
    await interrupt('once');
    await resume('once', { store, workflows: { Once: build } });
    expect(caught).toBeInstanceOf(ReplayedStepError);
    expect((caught as Error).name).toBe('CardDeclined');
  });
});

describe('secrets in the journal', () => {
  it('an env value a tool printed is not stored in clear in the call record', async () => {
    const secret = 'sk-live-9f8e7d6c5b4a3210';
    const printEnv = defineTool({
      name: 'print_env',
      description: 'prints the token',
      input: z.object({}),
      execute: (_input, { env }) => `token=${env.API_TOKEN} and "${JSON.stringify({ token: env.API_TOKEN }).slice(1, -1)}"`,
    });
    const model = new ScriptedModel([toolUse('print_env', {}), json({ n: 1 })]);
    const agent = createAgent({ name: 'leaky', ...agentModelSync(model), tools: [printEnv], env: { API_TOKEN: secret } });
    const wf = createWorkflow({ name: 'Leak', durable: { store, runId: 'lk' } }, async () => agent.prompt(createPrompt({ user: 'go', responseFormat: z.object({ n: z.number() }) })));
    await wf.run();
    const loaded = await store.loadRun('lk');
    expect(loaded.calls).toHaveLength(1);
    expect(JSON.stringify(loaded.calls[0]?.toolCalls)).toContain('token=');
    for (const file of readdirSync(join(dir, 'lk'))) {
      if (file.endsWith('.log') || file.endsWith('.json')) expect(readFileSync(join(dir, 'lk', file), 'utf8'), file).not.toContain(secret);
    }
  });
});
