import type { Context, SpanOptions, Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { createWorkflow, type WorkflowEvent } from 'groundswell';
import { otelObserver } from 'groundswell/otel';
import { deferred } from '../support/deferred.js';
import { eventsOfType } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';
import { hrMs, memoryTracing, named, parentOf } from './span-helpers.js';

/** Counts ended spans and keeps none of them. */
function countingProvider(onEnd: (span: ReadableSpan) => void = () => undefined) {
  const counted = { ended: 0 };
  const processor: SpanProcessor = {
    onStart: () => undefined,
    onEnd: (span) => {
      counted.ended += 1;
      onEnd(span);
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  return { provider: new BasicTracerProvider({ spanProcessors: [processor] }), counted };
}

describe('groundswell/otel: hostile input', () => {
  it('attached mid-run: spans for the running nodes it never saw start, started at their nodes’ start times', async () => {
    const tracing = memoryTracing();
    const observer = await otelObserver({ tracerProvider: tracing.provider });
    const clock = new FakeClock({ tick: 1 });
    const workflow = createWorkflow({ name: 'late', clock }, async (ctx) => {
      await ctx.step('before', () => 1);
      await ctx.step('outer', async () => {
        workflow.addObserver(observer);
        await ctx.step('inner', () => 2);
      });
      await ctx.step('after', () => 3);
    });
    await workflow.run();
    const spans = tracing.spans();
    expect(spans.map((span) => span.name).sort()).toEqual(['step after', 'step inner', 'step outer', 'workflow late']);
    const outerNode = workflow.node.children.find((node) => node.name === 'outer');
    const [outer] = named(spans, 'step outer');
    const [inner] = named(spans, 'step inner');
    expect(hrMs(outer?.startTime ?? [0, 0])).toBe(outerNode?.startTime);
    expect(hrMs(named(spans, 'workflow late')[0]?.startTime ?? [0, 0])).toBe(workflow.node.startTime);
    expect(parentOf(inner as ReadableSpan, spans)).toBe(outer);
    expect(parentOf(outer as ReadableSpan, spans)?.name).toBe('workflow late');
    expect(observer.openSpans).toBe(0);
  });

  it('a run of 10,000 steps keeps only its running spans: finished ones are ended and forgotten', async () => {
    const { provider, counted } = countingProvider();
    const observer = await otelObserver({ tracerProvider: provider });
    let mostOpen = 0;
    const workflow = createWorkflow({ name: 'long' }, async (ctx) => {
      for (let i = 0; i < 10_000; i += 1) {
        await ctx.step(`s${i}`, () => {
          mostOpen = Math.max(mostOpen, observer.openSpans);
        });
      }
    });
    workflow.addObserver(observer);
    await workflow.run();
    // The workflow and the step that is running, never more.
    expect(mostOpen).toBe(2);
    expect(observer.openSpans).toBe(0);
    expect(counted.ended).toBe(10_001);
  }, 60_000);

  it('a cancelled run ends every open span at once, marked cancelled; late reports add no spans', async () => {
    const tracing = memoryTracing();
    const observer = await otelObserver({ tracerProvider: tracing.provider });
    const started = deferred();
    const hang = deferred();
    const workflow = createWorkflow({ name: 'stopped' }, async (ctx) => {
      await ctx.step('outer', () =>
        ctx.step('waits', async () => {
          started.resolve();
          await hang.promise;
        }),
      );
    });
    workflow.addObserver(observer);
    const run = workflow.run().then(
      () => undefined,
      (error: unknown) => error,
    );
    await started.promise;
    expect(observer.openSpans).toBe(3);
    workflow.cancel('operator stop');
    expect(observer.openSpans).toBe(0);
    const atCancel = tracing.spans();
    expect(atCancel.map((span) => [span.name, span.attributes['groundswell.status']]).sort()).toEqual([
      ['step outer', 'cancelled'],
      ['step waits', 'cancelled'],
      ['workflow stopped', 'cancelled'],
    ]);
    expect(named(atCancel, 'workflow stopped')[0]?.events.map((event) => event.name)).toContain('groundswell.cancelled');
    hang.resolve();
    expect(await run).toBeInstanceOf(Error);
    // The steps' and the workflow's own end events came after: no second span for any node.
    expect(tracing.spans()).toHaveLength(3);
  });

  it('endAll ends what is still open (before an SDK shutdown), marked abandoned', async () => {
    const tracing = memoryTracing();
    const observer = await otelObserver({ tracerProvider: tracing.provider });
    const started = deferred();
    const hang = deferred();
    const workflow = createWorkflow({ name: 'open' }, (ctx) =>
      ctx.step('waits', async () => {
        started.resolve();
        await hang.promise;
      }),
    );
    workflow.addObserver(observer);
    const run = workflow.run();
    await started.promise;
    observer.endAll();
    expect(observer.openSpans).toBe(0);
    expect(tracing.spans().map((span) => [span.name, span.attributes['groundswell.abandoned']]).sort()).toEqual([
      ['step waits', true],
      ['workflow open', true],
    ]);
    hang.resolve();
    await run;
  });

  it('a workflow run twice gets a span per run', async () => {
    const tracing = memoryTracing();
    const workflow = createWorkflow({ name: 'again' }, (ctx) => ctx.step('work', () => 1));
    workflow.addObserver(await otelObserver({ tracerProvider: tracing.provider }));
    await workflow.run();
    await workflow.run();
    expect(named(tracing.spans(), 'workflow again')).toHaveLength(2);
  });

  it('a failing tracer or span processor never breaks the run; the failure is reported as observerError', async () => {
    const throwingTracer: Tracer = {
      startSpan: (_name: string, _options?: SpanOptions, _context?: Context) => {
        throw new Error('tracer down');
      },
      startActiveSpan: () => {
        throw new Error('not used');
      },
    };
    const { provider } = countingProvider(() => {
      throw new Error('exporter down');
    });
    for (const observer of [await otelObserver({ tracer: throwingTracer }), await otelObserver({ tracerProvider: provider })]) {
      const events: WorkflowEvent[] = [];
      const workflow = createWorkflow({ name: 'robust' }, async (ctx) => (await ctx.step('a', () => 1)) + (await ctx.step('b', () => 2)));
      workflow.addObserver({ onEvent: (event) => events.push(event) });
      workflow.addObserver(observer);
      expect(await workflow.run()).toBe(3);
      expect(eventsOfType(events, 'observerError').length).toBeGreaterThan(0);
      expect(eventsOfType(events, 'workflowEnd')).toMatchObject([{ status: 'completed' }]);
    }
  });

  it('an event for a node it cannot place (no node given, never seen) is ignored', async () => {
    const tracing = memoryTracing();
    const observer = await otelObserver({ tracerProvider: tracing.provider });
    expect(() => observer.onEvent({ id: 1, nodeId: 'step-x', workflowId: 'wf-x', timestamp: 0, type: 'stepEnd', name: 'x', status: 'completed', attempts: 1 })).not.toThrow();
    expect(tracing.spans()).toEqual([]);
  });

  it('refuses options that are not a tracer, a provider or a boolean', async () => {
    await expect(otelObserver({ tracer: {} as Tracer })).rejects.toThrow(/tracer must be an OpenTelemetry Tracer/);
    await expect(otelObserver({ captureContent: 'yes' as unknown as boolean })).rejects.toThrow(/captureContent must be a boolean/);
  });
});
