import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow, type Agent, type Budget } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { Answer } from '../support/agent-helpers.js';
import { closeServers, eventsOf, MODEL_ID, PROVIDER_PATH, rootBudget, usageEvents } from './both-paths.js';
import { budgetErrorIn } from './budget-helpers.js';

afterEach(closeServers);

const CALLS = 20;
const MAX_TOKENS = 1_000;
const USAGE = { input_tokens: 40, output_tokens: 12 };
// $10 per million output tokens: a request's worst case is at least its maxTokens of output, $0.01.
const PRICING = { [MODEL_ID]: { inputPerMTok: 1, outputPerMTok: 10 } };

/** CALLS streamed calls, one at a time, under `budget`. */
function streamedCalls(agent: Agent, budget: Budget) {
  const questions = Array.from({ length: CALLS }, (_, i) => `q${i}`);
  return createWorkflow({ name: 'streamed', budget }, (ctx) =>
    ctx.map(questions, (q) => ctx.step(q, () => agent.stream(createPrompt({ user: q, responseFormat: Answer })).finalValue()), { concurrency: 1, settle: 'all' }),
  );
}

// Each request reserves at least its maxTokens (and, priced, at least $0.01): these caps hold 3.
const CAPS: ReadonlyArray<{ name: string; budget: Budget }> = [
  { name: 'tokens', budget: { tokens: 3.5 * MAX_TOKENS } },
  { name: 'usd', budget: { usd: 0.035 } },
];

describe('a provider that reports no usage in streams (createOpenAICompatible without includeUsage)', () => {
  it.each(CAPS)('a $name cap that holds 3 requests answers at most 3 of 20 streamed calls; each books its reservation, with an event', async ({ budget }) => {
    const script = new ScriptedModel(() => json({ answer: 'ok' }, { usage: USAGE }));
    const agent = createAgent({ name: 'streamer', ...(await PROVIDER_PATH.agentModel(script, { includeUsage: false })), maxTokens: MAX_TOKENS, pricing: PRICING });
    const workflow = streamedCalls(agent, budget);
    const events = eventsOf(workflow);
    const outcomes = await workflow.run();

    // What the stand-in received: no more than the cap holds.
    expect(script.requests.length).toBeGreaterThan(0);
    expect(script.requests.length).toBeLessThanOrEqual(3);
    // It was asked for no usage, and sent none.
    expect(script.requests.every((request) => request.chatCompletions?.stream_options === undefined)).toBe(true);
    const answered = outcomes.filter((o) => o.status === 'fulfilled').length;
    expect(answered).toBe(script.requests.length);
    const refused = outcomes.find((o) => o.status === 'rejected');
    expect(budgetErrorIn(refused?.status === 'rejected' ? refused.error : undefined)).toBeDefined();
    const missing = usageEvents(events);
    expect(missing).toHaveLength(answered);
    for (const event of missing) {
      expect(event).toMatchObject({ reason: 'missing', maxTokens: MAX_TOKENS, reported: { inputTokens: null, outputTokens: null } });
      expect(event.booked.tokens).toBeGreaterThan(MAX_TOKENS);
    }
    expect(rootBudget(workflow).spent.tokens).toBe(missing.reduce((sum, event) => sum + event.booked.tokens, 0));
  });

  it('with includeUsage: true the stand-in reports usage in the stream, and the budget books exactly that', async () => {
    const script = new ScriptedModel(() => json({ answer: 'ok' }, { usage: USAGE }));
    const agent = createAgent({ name: 'streamer', ...(await PROVIDER_PATH.agentModel(script, { includeUsage: true })), maxTokens: MAX_TOKENS, pricing: PRICING });
    const workflow = streamedCalls(agent, { tokens: 3.5 * MAX_TOKENS });
    const events = eventsOf(workflow);
    const outcomes = await workflow.run();

    expect(script.requests).toHaveLength(CALLS);
    expect(script.requests.every((request) => (request.chatCompletions?.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true)).toBe(true);
    expect(outcomes.every((o) => o.status === 'fulfilled')).toBe(true);
    expect(usageEvents(events)).toEqual([]);
    expect(rootBudget(workflow).spent.tokens).toBe(CALLS * (USAGE.input_tokens + USAGE.output_tokens));
  });
});
