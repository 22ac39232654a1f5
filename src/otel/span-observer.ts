import type { Attributes, Context, Tracer } from '@opentelemetry/api';
import type { AgentPromptEndEvent, McpEvent, ModelRequestEvent, ToolInvocationEvent, WorkflowEvent } from '../types/events.js';
import type { WorkflowNode } from '../types/node.js';
import { isFinished, type WorkflowStatus } from '../types/status.js';
import type { SerializedError } from '../util/serialize-error.js';
import { capped, cappedStack } from './capped-text.js';
import { finishReasons, outputMessages, providerAttributes, usageAttributes } from './gen-ai-attributes.js';
import type { OtelApi } from './load-otel-api.js';
import { OpenSpans, type OpenSpan } from './open-spans.js';
import type { OtelObserver, OtelObserverOptions } from './otel-types.js';
import { spanEventOf } from './span-events.js';
import { spanStart } from './span-start.js';

/**
 * Turns the events of a root workflow's tree into spans as they arrive. Every value comes from
 * the events and nodes, which the run's secrets already masked; content only with `captureContent`.
 */
export class SpanObserver implements OtelObserver {
  private readonly spans: OpenSpans;
  private readonly captureContent: boolean;

  constructor(
    private readonly api: OtelApi,
    private readonly tracer: Tracer,
    options: OtelObserverOptions,
  ) {
    const captureContent = options.captureContent === true;
    const parentContext = options.parentContext;
    this.captureContent = captureContent;
    this.spans = new OpenSpans({
      api,
      tracer,
      describe: (node, event) => spanStart(api, node, event, captureContent),
      rootContext: (): Context => parentContext ?? api.context.active(),
      closeImplicitly: (open) => closeImplicitly(open),
    });
  }

  get openSpans(): number {
    return this.spans.size;
  }

  endAll(): void {
    this.spans.endAll(Date.now());
  }

  onEvent(event: WorkflowEvent, node?: WorkflowNode): void {
    const target = node ?? this.spans.get(event.nodeId)?.node;
    if (target === undefined) return;
    switch (event.type) {
      case 'workflowStart':
      case 'stepStart':
      case 'taskStart':
      case 'agentPromptStart':
        // A node that starts again (a workflow run twice) gets a new span.
        this.spans.forget(target);
        this.spans.ensure(target, event, event.timestamp);
        return;
      case 'workflowEnd':
      case 'taskEnd':
        this.finish(target, event.status, event.timestamp);
        return;
      case 'stepEnd':
        this.finish(target, event.status, event.timestamp, { 'groundswell.step.attempts': event.attempts });
        return;
      case 'agentPromptEnd':
        this.agentEnded(target, event);
        return;
      case 'modelRequest':
        this.chat(target, event);
        return;
      case 'toolInvocation':
        this.toolEnded(target, event);
        return;
      case 'mcpEvent':
        if (event.phase === 'call') this.toolEnded(target, event);
        else this.addEvent(target, event);
        return;
      case 'error': {
        const open = this.spans.ensure(target, undefined, event.timestamp);
        if (open !== undefined) recordError(this.api, open, event.error, event.timestamp);
        return;
      }
      case 'reflectionEnd':
        this.addEvent(target, event);
        if (target.kind === 'reflection') this.finish(target, event.status, event.timestamp);
        return;
      case 'cancelled': {
        // Everything beneath the cancelled workflow ends now, as its nodes did in the tree.
        const open = this.addEvent(target, event);
        if (open === undefined) return;
        closeImplicitly(open);
        this.spans.end(open, target.endTime ?? event.timestamp);
        return;
      }
      case 'childDetached': {
        // A detached subtree reports elsewhere from now on: its spans end here.
        const child = this.spans.get(event.childId);
        if (child !== undefined) {
          child.span.setAttribute('groundswell.detached', true);
          closeImplicitly(child);
          this.spans.end(child, event.timestamp);
        }
        return;
      }
      default:
        this.addEvent(target, event);
    }
  }

  private addEvent(node: WorkflowNode, event: WorkflowEvent): OpenSpan | undefined {
    const open = this.spans.ensure(node, undefined, event.timestamp);
    const shown = spanEventOf(event, this.captureContent);
    if (open !== undefined && shown !== undefined) open.span.addEvent(shown.name, shown.attributes, event.timestamp);
    return open;
  }

  private finish(node: WorkflowNode, status: WorkflowStatus, time: number, attributes?: Attributes): OpenSpan | undefined {
    const open = this.spans.ensure(node, undefined, time);
    if (open === undefined) return undefined;
    if (attributes !== undefined) open.span.setAttributes(attributes);
    setStatus(this.api, open, status);
    // The node's own end when it has one (an agent call finishes its node, then reports).
    this.spans.end(open, isFinished(node.status) ? (node.endTime ?? time) : time);
    return open;
  }

  private agentEnded(node: WorkflowNode, event: AgentPromptEndEvent): void {
    const open = this.spans.ensure(node, undefined, event.timestamp);
    if (open === undefined) return;
    const attributes: Attributes = {
      'gen_ai.response.model': event.model,
      ...usageAttributes(event.usage),
      ...finishReasons(event.stopReason),
      'groundswell.turns': event.turns,
      'groundswell.cached': event.cached,
      'groundswell.replayed': event.replayed === true,
    };
    if (this.captureContent && event.output !== undefined) attributes['gen_ai.output.messages'] = outputMessages(event.output, event.stopReason);
    open.span.setAttributes(attributes);
    if (event.error !== undefined) recordError(this.api, open, event.error, event.timestamp);
    this.finish(node, event.status, event.timestamp);
  }

  /** One `chat <model>` span per model request, beneath its agent call's span, ended at once. */
  private chat(node: WorkflowNode, event: ModelRequestEvent): void {
    const parent = this.spans.contextOf(node, event.timestamp);
    const span = this.tracer.startSpan(
      `chat ${event.requestModel}`,
      {
        kind: this.api.SpanKind.CLIENT,
        startTime: event.startTime,
        attributes: {
          'gen_ai.operation.name': 'chat',
          ...providerAttributes(),
          'gen_ai.request.model': event.requestModel,
          'gen_ai.response.model': event.model,
          ...usageAttributes(event.usage),
          ...finishReasons(event.stopReason),
          'gen_ai.agent.name': event.agentName,
          'groundswell.turn': event.turn,
        },
      },
      parent,
    );
    span.end(Math.max(event.timestamp, event.startTime));
  }

  private toolEnded(node: WorkflowNode, event: ToolInvocationEvent | McpEvent): void {
    const open = this.spans.ensure(node, event, event.timestamp);
    if (open === undefined) return;
    const attributes: Attributes = {};
    if (event.toolUseId !== undefined) attributes['gen_ai.tool.call.id'] = event.toolUseId;
    if (event.type === 'mcpEvent') attributes['groundswell.mcp.server'] = event.server;
    else {
      if (event.blockedReason !== undefined) attributes['groundswell.tool.blocked_reason'] = event.blockedReason;
      if (event.outcome !== undefined) attributes['groundswell.tool.outcome'] = event.outcome;
    }
    if (this.captureContent) {
      if (event.input !== undefined) attributes['gen_ai.tool.call.arguments'] = capped(JSON.stringify(event.input) ?? '');
      if (event.output !== undefined) attributes['gen_ai.tool.call.result'] = capped(event.output);
    }
    open.span.setAttributes(attributes);
    if (event.isError === true && !open.failed) {
      open.failed = true;
      open.span.setAttribute('error.type', event.type === 'toolInvocation' && event.blockedReason !== undefined ? 'blocked' : 'tool_error');
      open.span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: 'the tool reported an error' });
    }
    this.finish(node, node.status === 'running' ? (event.isError === true ? 'failed' : 'completed') : node.status, event.timestamp);
  }
}

/**
 * Records a serialized error on the span (as an exception) and marks the span failed once. Its
 * texts are capped: a 10 MB message would otherwise be sent three times (message, stack, status).
 */
function recordError(api: OtelApi, open: OpenSpan, error: SerializedError, time: number): void {
  const name = capped(error.name);
  const message = capped(error.message);
  const exception = error.stack === undefined ? { name, message } : { name, message, stack: cappedStack(error.stack, error.name, error.message) };
  open.span.recordException(exception, time);
  if (open.failed) return;
  open.failed = true;
  open.span.setAttribute('error.type', name);
  open.span.setStatus({ code: api.SpanStatusCode.ERROR, message: capped(`${error.name}: ${error.message}`) });
}

function setStatus(api: OtelApi, open: OpenSpan, status: WorkflowStatus): void {
  open.span.setAttribute('groundswell.status', status);
  if (status === 'failed' && !open.failed) {
    open.failed = true;
    open.span.setStatus({ code: api.SpanStatusCode.ERROR });
  }
}

/** A span ended without an end event of its own: its node's status, and whether it was left unfinished. */
function closeImplicitly(open: OpenSpan): void {
  const status = open.node.status;
  open.span.setAttribute('groundswell.status', status);
  if (status === 'running' || status === 'idle') open.span.setAttribute('groundswell.abandoned', true);
}
