import { describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow, progressDisplay, WorkflowTreeDebugger, type Workflow, type WorkflowEvent } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { Answer } from '../support/agent-helpers.js';
import { record } from '../support/events.js';
import { agentModel, pricedModel } from '../support/model-path.js';
import { budgetErrorIn } from './budget-helpers.js';

// A request's worst case is about $0.0012 (its ~150 estimated input tokens at the cache-write
// rate, plus 400 output tokens at $2.50 a million): two fit beside each other under $0.003, a
// third does not. What the server reports costs a tenth of that.
const MODEL = 'claude-test-1';
const PRICE = { inputPerMTok: 1, outputPerMTok: 2.5 };
const MAX_TOKENS = 400;
const SMALL = { input_tokens: 20, output_tokens: 40 };

const costOf = (usage: { input_tokens: number; output_tokens: number }): number =>
  (usage.input_tokens * PRICE.inputPerMTok + usage.output_tokens * PRICE.outputPerMTok) / 1_000_000;

/** A model server that answers with `usage` and adds up what its answers cost at PRICE. */
function server(usage: { input_tokens: number; output_tokens: number }, hold?: (request: number) => Promise<void>) {
  const reported: number[] = [];
  const model = new ScriptedModel(async (_request, index) => {
    await hold?.(index);
    reported.push(costOf(usage));
    return json({ answer: `answer ${index + 1}` }, { usage, delayMs: 1 });
  });
  return { model, reported, total: () => reported.reduce((sum, cost) => sum + cost, 0) };
}

async function researcher(model: ScriptedModel) {
  return createAgent({ name: 'researcher', ...(await agentModel(model, { model: MODEL })), maxTokens: MAX_TOKENS, pricing: { [pricedModel(MODEL)]: PRICE } });
}

function fanOut(agent: Awaited<ReturnType<typeof researcher>>, usd: number, questions: number, concurrency: number) {
  const items = Array.from({ length: questions }, (_, i) => `question ${i + 1}`);
  return createWorkflow({ name: 'research', budget: { usd } }, (ctx) =>
    ctx.map(items, (q) => ctx.step(q, () => agent.prompt(createPrompt({ user: q, responseFormat: Answer }))), { concurrency, settle: 'all' }),
  );
}

/** The first event of one of `types` below `workflow` (watched from now: call it before the run). */
function firstEvent(workflow: Workflow<unknown>, types: readonly string[]): Promise<WorkflowEvent> {
  return new Promise((resolve) => workflow.addObserver({ onEvent: (event) => (types.includes(event.type) ? resolve(event) : undefined) }));
}

describe('a request that fits below the limit but not beside the requests in flight', () => {
  it('waits for them to settle: 10 questions, 3 at a time, under $0.003 are all answered, and the server never reports more than the cap', async () => {
    const { model, total } = server(SMALL);
    const workflow = fanOut(await researcher(model), 0.003, 10, 3);
    const recording = record(workflow);
    const outcomes = await workflow.run();
    const answered = outcomes.filter((o) => o.status === 'fulfilled').length;
    expect(answered).toBe(10);
    expect(model.requests.length).toBe(10);
    expect(total()).toBeLessThanOrEqual(0.003 + 1e-12);
    // The premise: three worst cases did not fit beside each other, so some request waited.
    expect(recording.events.some((e) => e.type === ('budgetWaiting' as string))).toBe(true);
  });

  it('is refused only when what is spent plus what it needs passes the limit; the server never reports more than the cap', async () => {
    // Answers of 300 output tokens: about $0.0008 each, so only some of the 10 fit.
    const large = { input_tokens: 20, output_tokens: 300 };
    const { model, total } = server(large);
    const workflow = fanOut(await researcher(model), 0.003, 10, 3);
    const outcomes = await workflow.run();
    const answered = outcomes.filter((o) => o.status === 'fulfilled').length;
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(model.requests.length).toBe(answered);
    expect(total()).toBeLessThanOrEqual(0.003 + 1e-12);
    // Spent plus the next worst case left no room for one more.
    expect(answered).toBe(3);
    expect(refused.length).toBe(7);
    for (const outcome of refused) {
      const error = budgetErrorIn(outcome.error);
      expect(error?.dimension).toBe('usd');
      expect((error?.spent ?? 0) + (error?.needed ?? 0)).toBeGreaterThan(0.003);
    }
  });

  it('shows as waiting for budget in the tree and the progress display, and stops waiting, sending nothing, when the workflow is cancelled', async () => {
    let release: () => void = () => undefined;
    let arrived: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = new Promise<void>((resolve) => (arrived = resolve));
    // The first request is answered only when the test says so: the second waits meanwhile.
    const { model } = server(SMALL, (index) => {
      if (index !== 0) return Promise.resolve();
      arrived();
      return held;
    });
    // One worst case fits under $0.0015, two do not.
    const workflow = fanOut(await researcher(model), 0.0015, 2, 2);
    const writes: string[] = [];
    let tick: (() => void) | undefined;
    workflow.addObserver(progressDisplay({ stream: { isTTY: false, write: (text: string) => writes.push(text) > 0 }, timer: (fn) => ((tick = fn), () => (tick = undefined)) }));
    const recording = record(workflow);
    // A refusal instead of a wait ends the test (the held answer is let go, so nothing hangs).
    const seen = firstEvent(workflow, ['budgetWaiting', 'budgetExceeded']);
    const running = workflow.run();
    const settled = running.then(
      () => undefined,
      () => undefined,
    );
    const waiting = await Promise.race([seen, settled]);
    if (waiting?.type !== 'budgetWaiting') release();
    expect(waiting?.type, 'a request waited for budget').toBe('budgetWaiting');
    await first;

    expect(new WorkflowTreeDebugger(workflow).toTreeString()).toContain('waiting for budget');
    tick?.();
    expect(writes.at(-1)).toContain('1 waiting for budget');

    workflow.cancel('stopped by the test');
    release();
    await settled;
    expect(model.requests.length).toBe(1);
    const ends = recording.events.filter((e) => e.type === ('budgetWaiting' as string) && (e as { phase?: string }).phase === 'end');
    expect(ends.map((e) => (e as { outcome?: string }).outcome)).toEqual(['cancelled']);
  });
});
