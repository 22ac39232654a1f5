import { describe, expect, it } from 'vitest';
import { createPrompt, createWorkflow, MaxTurnsExceededError, type TokenUsage, type WorkflowEvent } from 'groundswell';
import { eventsOfType } from '../support/events.js';
import { Answer, MODEL, reviewer, twoTurnModel } from './scripted-run.js';

function sum(usages: readonly TokenUsage[]): TokenUsage {
  const total: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };
  for (const usage of usages) {
    total.inputTokens += usage.inputTokens;
    total.outputTokens += usage.outputTokens;
    total.cacheCreationInputTokens += usage.cacheCreationInputTokens;
    total.cacheReadInputTokens += usage.cacheReadInputTokens;
    if (usage.costUsd !== undefined) total.costUsd = (total.costUsd ?? 0) + usage.costUsd;
  }
  return total;
}

async function callIn(agent: ReturnType<typeof reviewer>) {
  const events: WorkflowEvent[] = [];
  const workflow = createWorkflow({ name: 'ask' }, (ctx) =>
    ctx.step('ask', () => agent.prompt(createPrompt({ user: 'Add 2 and 3.', responseFormat: Answer }))),
  );
  workflow.addObserver({ onEvent: (event) => events.push(event) });
  const outcome = await workflow.run().then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  return { events, outcome, workflow };
}

describe('modelRequest: one event per model response', () => {
  it('reports each turn on the call’s node; their usages add up to the call’s, cost included', async () => {
    const pricing = { [MODEL]: { inputPerMTok: 3, outputPerMTok: 15, cacheWritePerMTok: 3.75, cacheReadPerMTok: 0.3 } };
    const { events, outcome } = await callIn(reviewer(twoTurnModel(), { pricing }));
    expect(outcome).toEqual({ value: { answer: 'five' } });
    const requests = eventsOfType(events, 'modelRequest');
    const [end] = eventsOfType(events, 'agentPromptEnd');
    expect(requests.map((event) => [event.turn, event.stopReason, event.requestModel, event.model, event.agentName])).toEqual([
      [1, 'tool_use', MODEL, MODEL, 'reviewer'],
      [2, 'end_turn', MODEL, MODEL, 'reviewer'],
    ]);
    for (const event of requests) {
      expect(event.nodeId).toBe(end?.nodeId);
      expect(event.startTime).toBeLessThanOrEqual(event.timestamp);
      expect(event.duration).toBe(event.timestamp - event.startTime);
    }
    const total = sum(requests.map((event) => event.usage));
    expect(total.costUsd).toBeGreaterThan(0);
    expect(total.costUsd).toBeCloseTo(end?.usage.costUsd ?? -1, 12);
    expect({ ...total, costUsd: undefined }).toEqual({ ...end?.usage, costUsd: undefined });
  });

  it('a call that fails after answered turns: the requests still add up to what the call reports', async () => {
    const model = twoTurnModel();
    const looping = reviewer(model, { maxTurns: 1 });
    const { events, outcome } = await callIn(looping);
    expect((outcome as { error: { cause?: unknown } }).error).toBeDefined();
    const [end] = eventsOfType(events, 'agentPromptEnd');
    expect(end?.status).toBe('failed');
    expect(end?.error?.name).toBe(MaxTurnsExceededError.name);
    const requests = eventsOfType(events, 'modelRequest');
    expect(requests).toHaveLength(1);
    expect(sum(requests.map((event) => event.usage))).toEqual(end?.usage);
  });

  it('a cache hit sends no request: no modelRequest, zero usage', async () => {
    const { LruCacheStore } = await import('groundswell/cache');
    const cache = new LruCacheStore();
    const agent = reviewer(twoTurnModel(), { enableCache: true, cache, tools: [] });
    // The first call fills the cache (its tool call is answered as an unknown tool; turn 2 answers).
    const first = await callIn(agent);
    expect(eventsOfType(first.events, 'modelRequest')).toHaveLength(2);
    const again = await callIn(agent);
    expect(eventsOfType(again.events, 'cacheHit')).toHaveLength(1);
    expect(eventsOfType(again.events, 'modelRequest')).toEqual([]);
  });
});
