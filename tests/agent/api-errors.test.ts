import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  defineTool,
  isRetryable,
  WorkflowError,
  type Agent,
} from 'groundswell';
import { httpError, json, networkError, ScriptedModel, toolUse, type ScriptStep } from 'groundswell/testing';
import { Answer, failed, onlyChild, runInStep, runningNodes } from '../support/agent-helpers.js';
import { eventsOfType, record } from '../support/events.js';
import { agentModel } from '../support/model-path.js';

function askInStep(agent: Agent) {
  return runInStep(() => agent.prompt(createPrompt({ user: 'go', responseFormat: Answer })));
}

const RETRIED: ReadonlyArray<[number, abstract new (...args: never[]) => Error]> = [
  [429, Anthropic.RateLimitError],
  [500, Anthropic.InternalServerError],
  [529, Anthropic.OverloadedError],
];

describe('retryable API errors', () => {
  it.each(RETRIED)('%i is retried by the SDK, and each failed attempt is an apiError event on the prompt node', async (status) => {
    const model = new ScriptedModel([httpError(status), httpError(status), json({ answer: 'third time lucky' })]);
    // Two retries: the scripted client's default, and the provider path's.
    const agent = createAgent({ name: 'retrier', ...(await agentModel(model)) });
    const run = await askInStep(agent);
    expect(run.outcome).toEqual({ ok: true, value: { answer: 'third time lucky' } });
    expect(model.requests).toHaveLength(3);

    const promptNode = onlyChild(run.step, 'agentPrompt');
    expect(promptNode.status).toBe('completed');
    const apiErrors = eventsOfType(run.recording.events, 'apiError');
    expect(apiErrors.map((e) => [e.nodeId, e.attempt, e.status])).toEqual([
      [promptNode.id, 1, status],
      [promptNode.id, 2, status],
    ]);
    for (const event of apiErrors) {
      expect(event.agentName).toBe('retrier');
      expect(event.message.length).toBeGreaterThan(0);
    }
    // One logical call: one start, one end, one turn.
    expect(eventsOfType(run.recording.events, 'agentPromptEnd')).toEqual([expect.objectContaining({ status: 'completed', turns: 1 })]);
    model.assertComplete();
  });

  it.each(RETRIED)('%i: when retries run out the step fails with a WorkflowError whose cause is the SDK error', async (status, errorClass) => {
    const model = new ScriptedModel([httpError(status), httpError(status, { message: `still ${status}` })]);
    const agent = createAgent({ name: 'retrier', client: model.client({ maxRetries: 1 }) });
    const run = await askInStep(agent);
    const error = failed(run.outcome);
    expect(error).toBeInstanceOf(WorkflowError);
    const cause = (error as WorkflowError).cause;
    expect(cause).toBeInstanceOf(errorClass);
    expect(cause).toBeInstanceOf(Anthropic.APIError);
    expect((cause as InstanceType<typeof Anthropic.APIError>).status).toBe(status);
    expect((cause as Error).message).toContain(`still ${status}`);
    expect(isRetryable(cause)).toBe(true);
    expect(model.requests).toHaveLength(2);

    const promptNode = onlyChild(run.step, 'agentPrompt');
    expect(promptNode.status).toBe('failed');
    expect(run.step.status).toBe('failed');
    expect(eventsOfType(run.recording.events, 'apiError').map((e) => e.attempt)).toEqual([1, 2]);
    const [end] = eventsOfType(run.recording.events, 'agentPromptEnd');
    expect(end).toMatchObject({ status: 'failed', error: { name: (cause as Error).name } });
    expect(runningNodes(run.workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('maxRetries: 0 means one attempt only', async () => {
    const model = new ScriptedModel([httpError(529)]);
    const agent = createAgent({ name: 'once', client: model.client({ maxRetries: 0 }) });
    const run = await askInStep(agent);
    expect((failed(run.outcome) as WorkflowError).cause).toBeInstanceOf(Anthropic.OverloadedError);
    expect(model.requests).toHaveLength(1);
    model.assertComplete();
  });

  it('retries inside a tool loop are per request: attempts count from 1 for each turn', async () => {
    const noop = defineTool({ name: 'noop', description: 'Nothing.', input: z.object({}), execute: () => 'ok' });
    const model = new ScriptedModel([httpError(529), toolUse('noop', {}), httpError(429), json({ answer: 'done' })]);
    const agent = createAgent({ name: 'loop', client: model.client({ maxRetries: 1 }), tools: [noop] });
    const run = await askInStep(agent);
    expect(run.outcome.ok).toBe(true);
    expect(eventsOfType(run.recording.events, 'apiError').map((e) => [e.attempt, e.status])).toEqual([
      [1, 529],
      [1, 429],
    ]);
    model.assertComplete();
  });
});

describe('errors a retry cannot fix', () => {
  const FINAL: ReadonlyArray<[number, abstract new (...args: never[]) => Error]> = [
    [400, Anthropic.BadRequestError],
    [401, Anthropic.AuthenticationError],
  ];

  it.each(FINAL)('%i is not retried, fails the step with the SDK error as cause, and isRetryable says no', async (status, errorClass) => {
    const model = new ScriptedModel([httpError(status)]);
    const agent = createAgent({ name: 'final', client: model.client({ maxRetries: 3 }) });
    const run = await askInStep(agent);
    const error = failed(run.outcome);
    expect(error).toBeInstanceOf(WorkflowError);
    const cause = (error as WorkflowError).cause;
    expect(cause).toBeInstanceOf(errorClass);
    expect(isRetryable(cause)).toBe(false);
    expect(isRetryable(error)).toBe(false);
    expect(model.requests).toHaveLength(1);
    expect(eventsOfType(run.recording.events, 'apiError').map((e) => [e.attempt, e.status])).toEqual([[1, status]]);
    expect(onlyChild(run.step, 'agentPrompt').status).toBe('failed');
    model.assertComplete();
  });

  it('isRetryable is true for 429, 500 and 529 errors and the WorkflowErrors wrapping them', async () => {
    for (const [status] of RETRIED) {
      const model = new ScriptedModel([httpError(status)]);
      const agent = createAgent({ name: 'r', client: model.client({ maxRetries: 0 }) });
      const error = failed((await askInStep(agent)).outcome);
      expect(isRetryable(error)).toBe(true);
      expect(isRetryable((error as WorkflowError).cause)).toBe(true);
      model.assertComplete();
    }
  });

  it('a step retry policy with retryOn: isRetryable retries a 529 but not a 401', async () => {
    const model = new ScriptedModel([httpError(529), json({ answer: 'second attempt' }), httpError(401)]);
    const agent = createAgent({ name: 'policy', client: model.client({ maxRetries: 0 }) });
    const prompt = createPrompt({ user: 'go', responseFormat: Answer });
    const retry = { maxAttempts: 3, backoffMs: 0, retryOn: isRetryable };
    const workflow = createWorkflow({ name: 'policy' }, async (ctx) => {
      const first = await ctx.step('overloaded', () => agent.prompt(prompt), { retry });
      await ctx.step('unauthorised', () => agent.prompt(prompt), { retry });
      return first;
    });
    const { events } = record(workflow);
    const error = await workflow.run().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect((error as WorkflowError).cause).toBeInstanceOf(Anthropic.AuthenticationError);
    const [overloaded, unauthorised] = workflow.node.children;
    expect(overloaded?.children.map((n) => [n.kind, n.status])).toEqual([
      ['agentPrompt', 'failed'],
      ['agentPrompt', 'completed'],
    ]);
    expect(unauthorised?.children.map((n) => [n.kind, n.status])).toEqual([['agentPrompt', 'failed']]);
    expect(eventsOfType(events, 'stepEnd').map((e) => [e.name, e.status, e.attempts])).toEqual([
      ['overloaded', 'completed', 2],
      ['unauthorised', 'failed', 1],
    ]);
    expect(model.requests).toHaveLength(3);
    model.assertComplete();
  });
});

describe('connection failures', () => {
  it('a network error is retried by the SDK and reported as an apiError with no status', async () => {
    const model = new ScriptedModel([networkError(), json({ answer: 'reconnected' })]);
    const agent = createAgent({ name: 'net', client: model.client({ maxRetries: 1 }) });
    const run = await askInStep(agent);
    expect(run.outcome).toEqual({ ok: true, value: { answer: 'reconnected' } });
    expect(model.requests).toHaveLength(2);
    const [event] = eventsOfType(run.recording.events, 'apiError');
    expect(event).toMatchObject({ attempt: 1, status: null, agentName: 'net' });
    model.assertComplete();
  });

  it('when it keeps failing the cause is the SDK’s APIConnectionError, which is retryable', async () => {
    const steps: ScriptStep[] = [networkError({ message: 'connect ECONNREFUSED' })];
    const model = new ScriptedModel(steps);
    const agent = createAgent({ name: 'net', client: model.client({ maxRetries: 0 }) });
    const run = await askInStep(agent);
    const cause = (failed(run.outcome) as WorkflowError).cause;
    expect(cause).toBeInstanceOf(Anthropic.APIConnectionError);
    expect(isRetryable(cause)).toBe(true);
    model.assertComplete();
  });
});
