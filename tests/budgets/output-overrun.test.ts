import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow, type Agent } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { Answer } from '../support/agent-helpers.js';
import { BOTH_PATHS, closeServers, eventsOf, rootBudget, usageEvents } from './both-paths.js';
import { budgetErrorIn } from './budget-helpers.js';

afterEach(closeServers);

const MAX_TOKENS = 100;
// What every answer reports: far more output than the request's maxTokens allowed.
const REPORTED = { input_tokens: 50, output_tokens: 5_000 };
// The first answer keeps to maxTokens: until a model has answered once, a budget sends it one
// request at a time, so only after it can several requests be in flight together.
const WARM_UP = { input_tokens: 50, output_tokens: 50 };
const FIRST = 4;

/**
 * Answers the first request with WARM_UP, then with REPORTED; the FIRST requests after it are held
 * until all of them arrived, so they are all in flight at once (the calls reserved together),
 * whatever the machine's speed.
 */
function overrunning(): ScriptedModel {
  let release: () => void = () => undefined;
  const allIn = new Promise<void>((resolve) => (release = resolve));
  return new ScriptedModel(async (_request, index) => {
    if (index === 0) return json({ answer: 'a0' }, { usage: WARM_UP });
    if (index <= FIRST) {
      if (index === FIRST) release();
      await allIn;
    }
    return json({ answer: `a${index}` }, { usage: REPORTED });
  });
}

/** One call, then FIRST calls at once, then three more one at a time, under the workflow's budget. */
function batches(agent: Agent, tokens: number) {
  const ask = (user: string) => agent.prompt(createPrompt({ user, responseFormat: Answer }));
  return createWorkflow({ name: 'overrun', budget: { tokens } }, async (ctx) => {
    const first = await ctx.map(['warm-up'], (user) => ctx.step(user, () => ask(user)), { settle: 'all' });
    const together = await ctx.map(['a', 'b', 'c', 'd'], (user) => ctx.step(user, () => ask(user)), { concurrency: FIRST, settle: 'all' });
    const later = await ctx.map(['e', 'f', 'g'], (user) => ctx.step(user, () => ask(user)), { concurrency: 1, settle: 'all' });
    return [...first, ...together, ...later];
  });
}

describe.each(BOTH_PATHS)('output beyond maxTokens ($name)', (path) => {
  it('books what was reported and refuses every later request under the budget; an event names the provider and the excess', async () => {
    const script = overrunning();
    const agent = createAgent({ name: 'writer', ...(await path.agentModel(script)), maxTokens: MAX_TOKENS });
    // Room for many more requests by the numbers: only the broken promise stops them.
    const workflow = batches(agent, 60_000);
    const events = eventsOf(workflow);
    const outcomes = await workflow.run();

    expect(script.requests).toHaveLength(1 + FIRST);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected']);
    const refused = outcomes[5];
    expect(budgetErrorIn(refused?.status === 'rejected' ? refused.error : undefined)?.message).toMatch(/takes no more work/);
    // Booked as the server reported it, no more and no less.
    expect(rootBudget(workflow).spent.tokens).toBe(WARM_UP.input_tokens + WARM_UP.output_tokens + FIRST * (REPORTED.input_tokens + REPORTED.output_tokens));
    expect(rootBudget(workflow).exceeded).toBe('tokens');
    const reported = usageEvents(events);
    expect(reported).toHaveLength(FIRST);
    for (const event of reported) {
      expect(event).toMatchObject({ reason: 'beyond-max-tokens', maxTokens: MAX_TOKENS, excess: REPORTED.output_tokens - MAX_TOKENS, booked: { tokens: 5_050 } });
      expect(event.provider).toMatch(path.name === 'Anthropic SDK' ? /^anthropic$/ : /^local/);
    }
  });
});
