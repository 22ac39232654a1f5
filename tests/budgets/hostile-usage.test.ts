import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow, MalformedResponseError, type Agent, type LanguageModelLike, type Workflow } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import type { ProviderGenerateResult, ProviderStreamPart } from '../../src/agent/model/language-model.js';
import { Answer } from '../support/agent-helpers.js';
import { ANTHROPIC_PATH, closeServers, eventsOf, PROVIDER_PATH, rootBudget, usageEvents } from './both-paths.js';
import { budgetErrorIn } from './budget-helpers.js';

afterEach(closeServers);

const CALLS = 20;
const MAX_TOKENS = 1_000;
// Each request reserves at least its maxTokens: this cap holds 3.
const TOKENS_CAP = 3.5 * MAX_TOKENS;

/** CALLS calls one at a time under a tokens cap; `spentAfter` is the budget's spent tokens after each call that answered. */
function calls(agent: Agent) {
  const spentAfter: number[] = [];
  const questions = Array.from({ length: CALLS }, (_, i) => `q${i}`);
  let root: Workflow | undefined;
  const workflow = createWorkflow({ name: 'hostile', budget: { tokens: TOKENS_CAP } }, (ctx) =>
    ctx.map(
      questions,
      (q) =>
        ctx.step(q, async () => {
          const value = await agent.prompt(createPrompt({ user: q, responseFormat: Answer }));
          if (root !== undefined) spentAfter.push(rootBudget(root).spent.tokens);
          return value;
        }),
      { concurrency: 1, settle: 'all' },
    ),
  );
  root = workflow;
  return { workflow, spentAfter };
}

function nonDecreasing(values: readonly number[]): boolean {
  return values.every((value, i) => Number.isFinite(value) && value >= 0 && (i === 0 || value >= (values[i - 1] as number)));
}

/** A model of the AI SDK v3 specification whose answers report NaN tokens; `sent` counts its requests. */
function nanModel(): LanguageModelLike & { sent: number } {
  const answer: ProviderGenerateResult = {
    content: [{ type: 'text', text: '{"answer":"ok"}' }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: { inputTokens: { total: Number.NaN, noCache: Number.NaN, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: Number.NaN } },
    warnings: [],
  };
  const model = {
    specificationVersion: 'v3' as const,
    provider: 'spec.chat',
    modelId: 'nan-model',
    supportsStructuredOutputs: true,
    sent: 0,
    doGenerate: () => {
      model.sent += 1;
      return Promise.resolve(answer);
    },
    doStream: () => {
      model.sent += 1;
      const parts: ProviderStreamPart[] = [...answer.content, { type: 'finish', finishReason: answer.finishReason, usage: answer.usage }];
      return Promise.resolve({ stream: new ReadableStream<ProviderStreamPart>({ start: (c) => (parts.forEach((p) => c.enqueue(p)), c.close()) }) });
    },
  };
  return model;
}

describe('usage that is not a count of tokens', () => {
  it('a provider server reporting negative prompt_tokens: each answer books its reservation, spending never goes down, the cap refuses', async () => {
    const script = new ScriptedModel(() => json({ answer: 'ok' }, { usage: { input_tokens: -100_000, output_tokens: 12 } }));
    const agent = createAgent({ name: 'hostile', ...(await PROVIDER_PATH.agentModel(script)), maxTokens: MAX_TOKENS });
    const { workflow, spentAfter } = calls(agent);
    const events = eventsOf(workflow);
    const outcomes = await workflow.run();

    expect(script.requests.length).toBeGreaterThan(0);
    expect(script.requests.length).toBeLessThanOrEqual(3);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(script.requests.length);
    expect(nonDecreasing(spentAfter)).toBe(true);
    expect(usageEvents(events).map((event) => event.reason)).toEqual(script.requests.map(() => 'malformed'));
    expect(usageEvents(events)[0]?.reported?.inputTokens).toBe(-100_000);
  });

  it('a specification model reporting NaN: figures stay numbers, and the cap refuses', async () => {
    const model = nanModel();
    const agent = createAgent({ name: 'nan', model, maxTokens: MAX_TOKENS });
    const { workflow, spentAfter } = calls(agent);
    const events = eventsOf(workflow);
    const outcomes = await workflow.run();

    expect(model.sent).toBeGreaterThan(0);
    expect(model.sent).toBeLessThanOrEqual(3);
    expect(nonDecreasing(spentAfter)).toBe(true);
    expect(Number.isFinite(rootBudget(workflow).spent.tokens)).toBe(true);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(model.sent);
    expect(usageEvents(events)).toHaveLength(model.sent);
    // Each request reports what its budgets booked, numbers.
    const requests = events.filter((event) => event.type === 'modelRequest');
    expect(requests).toHaveLength(model.sent);
    for (const event of requests) expect(Number.isFinite(event.usage.inputTokens + event.usage.outputTokens)).toBe(true);
  });

  it('the Anthropic path: a negative input_tokens is a MalformedResponseError, whose request books its reservation; the cap refuses', async () => {
    const script = new ScriptedModel(() => json({ answer: 'ok' }, { usage: { input_tokens: -100_000, output_tokens: 12 } }));
    const agent = createAgent({ name: 'hostile', ...(await ANTHROPIC_PATH.agentModel(script)), maxTokens: MAX_TOKENS });
    const { workflow } = calls(agent);
    const events = eventsOf(workflow);
    const outcomes = await workflow.run();

    expect(script.requests.length).toBeGreaterThan(0);
    expect(script.requests.length).toBeLessThanOrEqual(3);
    const errors = outcomes.map((o) => (o.status === 'rejected' ? o.error : undefined));
    const malformed = errors.filter((error) => !budgetErrorIn(error));
    expect(malformed).toHaveLength(script.requests.length);
    for (const error of malformed) expect(String((error as { cause?: unknown }).cause ?? error)).toMatch(new RegExp(MalformedResponseError.name));
    expect(errors.slice(script.requests.length).every((error) => budgetErrorIn(error) !== undefined)).toBe(true);
    expect(usageEvents(events).map((event) => event.reason)).toEqual(script.requests.map(() => 'malformed'));
  });
});
