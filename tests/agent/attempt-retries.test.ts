import { describe, expect, it } from 'vitest';
import { createAgent, createPrompt } from 'groundswell';
import { httpError, json, networkError, ScriptedModel } from 'groundswell/testing';
import { retryWaitMs, type AttemptFailure } from '../../src/agent/model/sdk-retry-policy.js';
import { Answer, runInStep } from '../support/agent-helpers.js';
import { eventsOfType } from '../support/events.js';

// Inside a workflow the agent makes each attempt itself (decision 0053): what the SDK would have sent and waited.
describe('attempts counted by the agent', () => {
  it('retries as the SDK does, telling the server how many attempts came before, and waits what the server asks', async () => {
    const model = new ScriptedModel([httpError(529, { retryAfterMs: 40 }), networkError(), json({ answer: 'ok' })]);
    const agent = createAgent({ name: 'counted', client: model.client({ maxRetries: 2 }) });
    const started = Date.now();
    const run = await runInStep(() => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })));
    expect(run.outcome).toEqual({ ok: true, value: { answer: 'ok' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    expect(model.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1', '2']);
    expect(eventsOfType(run.recording.events, 'apiError').map((e) => [e.attempt, e.status])).toEqual([
      [1, 529],
      [2, null],
    ]);
    model.assertComplete();
  });

  it('x-should-retry wins over the status, both ways', async () => {
    const model = new ScriptedModel([httpError(400, { shouldRetry: true }), httpError(503, { shouldRetry: false })]);
    const agent = createAgent({ name: 'told', client: model.client({ maxRetries: 3 }) });
    const run = await runInStep(() => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })));
    expect(run.outcome.ok).toBe(false);
    expect(model.requests).toHaveLength(2);
    model.assertComplete();
  });
});

describe('the SDK retry policy', () => {
  const http = (status: number, headers: Record<string, string> = {}): AttemptFailure => ({ kind: 'http', status, headers: new Headers(headers), body: undefined });

  it('waits what retry-after-ms or retry-after asks, else 0.5 s doubling up to 8 s less up to 25% jitter', () => {
    expect(retryWaitMs(http(429, { 'retry-after-ms': '120' }), 2, 2)).toBe(120);
    expect(retryWaitMs(http(429, { 'retry-after': '3' }), 2, 2)).toBe(3000);
    for (const [left, max, full] of [[2, 2, 500], [1, 2, 1000], [1, 6, 8000]] as const) {
      const wait = retryWaitMs(http(500), left, max) as number;
      expect(wait).toBeGreaterThan(full * 0.75 - 1);
      expect(wait).toBeLessThanOrEqual(full);
    }
    // Out of one timer's range or not positive: the default instead.
    expect(retryWaitMs(http(429, { 'retry-after-ms': String(2 ** 32) }), 2, 2)).toBeLessThanOrEqual(500);
  });

  it('retries connection failures and 408/409/429/5xx while retries are left, nothing else', () => {
    expect(retryWaitMs({ kind: 'connection', cause: new Error('x') }, 1, 2)).toBeGreaterThan(0);
    for (const status of [408, 409, 429, 500, 529]) expect(retryWaitMs(http(status), 1, 2)).toBeGreaterThan(0);
    for (const status of [400, 401, 403, 404, 422]) expect(retryWaitMs(http(status), 1, 2)).toBeUndefined();
    expect(retryWaitMs(http(401), 1, 2, true)).toBeGreaterThan(0);
    expect(retryWaitMs(http(529), 0, 2)).toBeUndefined();
    expect(retryWaitMs({ kind: 'other' }, 2, 2)).toBeUndefined();
  });
});
