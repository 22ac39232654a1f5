import type { Context, Tracer, TracerProvider } from '@opentelemetry/api';
import type { WorkflowEvent } from '../types/events.js';
import type { WorkflowNode } from '../types/node.js';
import type { WorkflowObserver } from '../types/observer.js';

export interface OtelObserverOptions {
  /** The tracer spans are made with. Else `tracerProvider`'s, else the global provider's. */
  readonly tracer?: Tracer;
  readonly tracerProvider?: TracerProvider;
  /**
   * Put content on spans: an agent's answer, tool arguments and results, reflection critiques,
   * prompt names (already masked by the run's secrets). Off by default, as the GenAI conventions
   * ask: content may be sensitive and large.
   */
  readonly captureContent?: boolean;
  /** The parent of the root workflow's span. Default: the context active when that span starts. */
  readonly parentContext?: Context;
}

/** A workflow observer that turns the tree into OpenTelemetry spans. */
export interface OtelObserver extends WorkflowObserver {
  onEvent(event: WorkflowEvent, node?: WorkflowNode): void;
  /** Spans started and not yet ended; a finished node's span is ended and forgotten. */
  readonly openSpans: number;
  /** Ends every open span now (before shutting the SDK down mid-run, say); they are marked abandoned. */
  endAll(): void;
}
