import { UsageError } from '../errors/groundswell-error.js';
import { describeValue } from '../util/describe.js';
import { loadOtelApi } from './load-otel-api.js';
import type { OtelObserver, OtelObserverOptions } from './otel-types.js';
import { SpanObserver } from './span-observer.js';

const TRACER_NAME = 'groundswell';

/**
 * An observer that turns a run's tree into OpenTelemetry spans following the GenAI semantic
 * conventions. Attach it to a root workflow: `wf.addObserver(await otelObserver({ tracerProvider }))`.
 * Async because `@opentelemetry/api` (an optional peer) is loaded here, not on import.
 */
export async function otelObserver(options: OtelObserverOptions = {}): Promise<OtelObserver> {
  checkOptions(options);
  const api = await loadOtelApi();
  const tracer = options.tracer ?? (options.tracerProvider ?? api.trace.getTracerProvider()).getTracer(TRACER_NAME);
  return new SpanObserver(api, tracer, options);
}

function checkOptions(options: OtelObserverOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new UsageError(`otelObserver expects an options object, got ${describeValue(options)}.`);
  }
  if (options.tracer !== undefined && typeof options.tracer.startSpan !== 'function') {
    throw new UsageError(`otelObserver: tracer must be an OpenTelemetry Tracer (with startSpan), got ${describeValue(options.tracer)}.`);
  }
  if (options.tracerProvider !== undefined && typeof options.tracerProvider.getTracer !== 'function') {
    throw new UsageError(
      `otelObserver: tracerProvider must be an OpenTelemetry TracerProvider (with getTracer), got ${describeValue(options.tracerProvider)}.`,
    );
  }
  if (options.captureContent !== undefined && typeof options.captureContent !== 'boolean') {
    throw new UsageError(`otelObserver: captureContent must be a boolean, got ${describeValue(options.captureContent)}.`);
  }
}
