import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow } from 'groundswell';
import { otelObserver } from 'groundswell/otel';
import { httpError, json, ScriptedModel } from 'groundswell/testing';
import { eventsOfType, record } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';
import { Answer, MODEL } from './scripted-run.js';
import { memoryTracing, named } from './span-helpers.js';

/** Everything a span would send to a collector, as one text: its size is what an exporter pays. */
function exported(span: ReadableSpan): string {
  return JSON.stringify({ attributes: span.attributes, status: span.status, events: span.events.map((event) => [event.name, event.attributes]) });
}

function cutCount(text: string): number {
  return Number(/… \[(\d+) more characters cut\]$/.exec(text)?.[1] ?? Number.NaN);
}

describe('groundswell/otel: error texts on spans', () => {
  it('a 10 MB error message is capped on the span: exception message and stack, status, with a marker saying how much was cut', async () => {
    const tracing = memoryTracing();
    const huge = 'x'.repeat(10 * 1024 * 1024);
    const workflow = createWorkflow({ name: 'huge', clock: new FakeClock({ tick: 1 }) }, async (ctx) => {
      await ctx.step('fails', () => {
        throw new Error(huge);
      });
    });
    const recording = record(workflow);
    workflow.addObserver(await otelObserver({ tracerProvider: tracing.provider }));
    await expect(workflow.run()).rejects.toThrow();
    const [error] = eventsOfType(recording.events, 'error').filter((event) => event.nodeId === workflow.node.children[0]?.id);
    if (error === undefined) throw new Error('no error event');
    expect(error.error.message.length).toBeGreaterThan(huge.length);

    const [step] = named(tracing.spans(), 'step fails');
    if (step === undefined) throw new Error('no step span');
    const status = step.status.message ?? '';
    expect(status.length).toBeLessThanOrEqual(2_000);
    // What was kept plus what was cut is the whole `Name: message`.
    const whole = `${error.error.name}: ${error.error.message}`;
    expect(whole.startsWith(status.slice(0, status.indexOf('…')))).toBe(true);
    expect(status.indexOf('…') + cutCount(status)).toBe(whole.length);

    const exception = step.events.find((event) => event.name === 'exception')?.attributes ?? {};
    const message = String(exception['exception.message']);
    expect(message.length).toBeLessThanOrEqual(2_000);
    expect(message.indexOf('…') + cutCount(message)).toBe(error.error.message.length);
    const stack = String(exception['exception.stacktrace']);
    expect(stack.length).toBeLessThanOrEqual(8_000);
    expect(stack).toMatch(/more characters cut\]/);
    // The frames survive: the header is cut like a message, not the whole stack at its start.
    expect(stack).toMatch(/\n\s+at /);
    for (const span of tracing.spans()) expect(exported(span).length).toBeLessThan(20_000);
  });

  it('the api_error span event carries the API’s own error message and type, not the HTTP status text', async () => {
    const tracing = memoryTracing();
    const message = 'This request would exceed the rate limit for your organization of 50 requests per minute.';
    const model = new ScriptedModel([httpError(429, { type: 'rate_limit_error', message }), json({ answer: 'ok' })]);
    const agent = createAgent({ name: 'limited', model: MODEL, client: model.client({ maxRetries: 1 }) });
    const workflow = createWorkflow({ name: 'limits', clock: new FakeClock({ tick: 1 }) }, async (ctx) =>
      ctx.step('ask', async () => (await agent.prompt(createPrompt({ user: 'Go.', responseFormat: Answer }))).answer),
    );
    const recording = record(workflow);
    workflow.addObserver(await otelObserver({ tracerProvider: tracing.provider }));
    expect(await workflow.run()).toBe('ok');

    expect(eventsOfType(recording.events, 'apiError')).toEqual([expect.objectContaining({ status: 429, message, errorType: 'rate_limit_error' })]);
    const [call] = named(tracing.spans(), 'invoke_agent limited');
    const event = call?.events.find((shown) => shown.name === 'groundswell.api_error');
    expect(event?.attributes).toMatchObject({
      'groundswell.error.message': message,
      'error.type': 'rate_limit_error',
      'http.response.status_code': 429,
      'groundswell.attempt': 1,
    });
  });
});
