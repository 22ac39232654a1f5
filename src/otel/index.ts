// `groundswell/otel`: a run's tree as OpenTelemetry spans, following the GenAI
// semantic conventions. `@opentelemetry/api` is an optional peer, loaded when an observer is made.
export { otelObserver } from './otel-observer.js';
export { OtelSetupError } from './otel-error.js';
export type { OtelObserver, OtelObserverOptions } from './otel-types.js';
