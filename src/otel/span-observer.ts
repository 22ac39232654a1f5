import type { Context, Tracer } from '@opentelemetry/api';
import type { WorkflowEvent } from '../types/events.js';
import { dispatchEventWith } from '../types/event-table.js';
import type { WorkflowNode } from '../types/node.js';
import type { OtelApi } from './load-otel-api.js';
import { OpenSpans } from './open-spans.js';
import type { OtelObserver, OtelObserverOptions } from './otel-types.js';
import { closeImplicitly, SPAN_ACTIONS, type SpanWriter } from './span-actions.js';
import { spanStart } from './span-start.js';

/**
 * Turns the events of a root workflow's tree into spans as they arrive. Every value comes from
 * the events and nodes, which the run's secrets already masked; content only with `captureContent`.
 */
export class SpanObserver implements OtelObserver {
  private readonly writer: SpanWriter;

  constructor(api: OtelApi, tracer: Tracer, options: OtelObserverOptions) {
    const captureContent = options.captureContent === true;
    const parentContext = options.parentContext;
    const spans = new OpenSpans({
      api,
      tracer,
      describe: (node, event) => spanStart(api, node, event, captureContent),
      rootContext: (): Context => parentContext ?? api.context.active(),
      closeImplicitly: (open) => closeImplicitly(open),
    });
    this.writer = { api, tracer, spans, captureContent };
  }

  get openSpans(): number {
    return this.writer.spans.size;
  }

  endAll(): void {
    this.writer.spans.endAll(Date.now());
  }

  onEvent(event: WorkflowEvent, node?: WorkflowNode): void {
    const target = node ?? this.writer.spans.get(event.nodeId)?.node;
    if (target === undefined) return;
    dispatchEventWith(SPAN_ACTIONS, event, this.writer, target);
  }
}
