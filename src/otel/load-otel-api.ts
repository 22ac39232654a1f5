import { OtelSetupError } from './otel-error.js';
import { isMissingModule } from '../util/missing-module.js';

/** The parts of `@opentelemetry/api` the observer uses. */
export type OtelApi = Pick<typeof import('@opentelemetry/api'), 'context' | 'trace' | 'SpanKind' | 'SpanStatusCode'>;

/**
 * Loads `@opentelemetry/api` when an observer is made, so neither `groundswell` nor
 * `groundswell/otel` loads it on import; it is an optional peer dependency.
 */
export async function loadOtelApi(): Promise<OtelApi> {
  let loaded: unknown;
  try {
    loaded = await import('@opentelemetry/api');
  } catch (error) {
    if (isMissingModule(error)) {
      throw new OtelSetupError('groundswell/otel needs the `@opentelemetry/api` package, which is not installed: run `npm install @opentelemetry/api`.', {
        cause: error,
      });
    }
    throw error;
  }
  const api = loaded as Partial<OtelApi>;
  if (typeof api.trace?.setSpan !== 'function' || typeof api.context?.active !== 'function') {
    throw new OtelSetupError('The installed `@opentelemetry/api` has no trace/context API; install @opentelemetry/api 1.x.');
  }
  return api as OtelApi;
}
