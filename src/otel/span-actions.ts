import type { Attributes, Tracer } from '@opentelemetry/api';
import type { AgentPromptEndEvent, CancelledEvent, ChildDetachedEvent, ErrorEvent, McpEvent, ModelRequestEvent, ToolInvocationEvent, WorkflowEvent } from '../types/events.js';
import type { EventTable } from '../types/event-table.js';
import type { WorkflowNode } from '../types/node.js';
import { isFinished, type WorkflowStatus } from '../types/status.js';
import type { SerializedError } from '../util/serialize-error.js';
import { budgetStandingAttributes } from './budget-attributes.js';
import { capped, cappedStack } from './capped-text.js';
import { finishReasons, outputMessages, providerAttributes, usageAttributes } from './gen-ai-attributes.js';
import type { OtelApi } from './load-otel-api.js';
import type { OpenSpan, OpenSpans } from './open-spans.js';
import { spanEventOf } from './span-events.js';

/** What one observer writes spans with: passed to every action, so the table is one constant. */
export interface SpanWriter {
  readonly api: OtelApi;
  readonly tracer: Tracer;
  readonly spans: OpenSpans;
  readonly captureContent: boolean;
}

/**
 * What each event does to the spans of `node` (the node it happened on). Events without a span
 * of their own become span events (`addEvent`, which also starts the node's span if it was
 * never seen); `spanEventOf` says which of them are shown.
 */
export const SPAN_ACTIONS: EventTable<void, SpanWriter, WorkflowNode> = {
  workflowStart: started,
  workflowEnd: (event, w, node) => {
    finish(w, node, event.status, event.timestamp);
  },
  childAttached: addEvent,
  childDetached: detached,
  treeUpdated: addEvent,
  stateSnapshot: addEvent,
  stepStart: started,
  stepEnd: (event, w, node) => {
    finish(w, node, event.status, event.timestamp, { 'groundswell.step.attempts': event.attempts });
  },
  stepRetry: addEvent,
  // The span is the moment of the replay: the process that ran the step traced its work then.
  stepReplayed: (event, w, node) => {
    addEvent(event, w, node)?.span.setAttribute('groundswell.replayed', true);
  },
  waitStarted: addEvent,
  signalReceived: addEvent,
  signalRejected: addEvent,
  taskStart: started,
  taskEnd: (event, w, node) => {
    finish(w, node, event.status, event.timestamp);
  },
  error: failed,
  cancelled,
  observerError: addEvent,
  agentPromptStart: started,
  agentPromptEnd: agentEnded,
  // Pieces of an answer: the whole answer is in agentPromptEnd.
  agentText: 'ignore',
  modelRequest: chat,
  toolInvocation: toolEnded,
  // A call has a span of its own; connecting, closing and failing are events on the agent's.
  mcpEvent: (event, w, node) => {
    if (event.phase === 'call') toolEnded(event, w, node);
    else addEvent(event, w, node);
  },
  apiError: addEvent,
  promptReplaced: addEvent,
  trajectoryCheckpoint: addEvent,
  contextCompacted: addEvent,
  goalSignOff: addEvent,
  reflectionStart: addEvent,
  reflectionEnd: (event, w, node) => {
    addEvent(event, w, node);
    if (node.kind === 'reflection') finish(w, node, event.status, event.timestamp);
  },
  cacheHit: addEvent,
  cacheMiss: addEvent,
  cacheStoreError: addEvent,
  pricingMissing: addEvent,
  budgetWaiting: addEvent,
  budgetWarning: addEvent,
  budgetExceeded: addEvent,
  budgetUsageUnreliable: addEvent,
};

/** A node that starts again (a workflow run twice) gets a new span. */
function started(event: WorkflowEvent, w: SpanWriter, node: WorkflowNode): void {
  w.spans.forget(node);
  w.spans.ensure(node, event, event.timestamp);
}

function addEvent(event: WorkflowEvent, w: SpanWriter, node: WorkflowNode): OpenSpan | undefined {
  const open = w.spans.ensure(node, undefined, event.timestamp);
  const shown = spanEventOf(event, w.captureContent);
  if (open !== undefined && shown !== undefined) open.span.addEvent(shown.name, shown.attributes, event.timestamp);
  return open;
}

function failed(event: ErrorEvent, w: SpanWriter, node: WorkflowNode): void {
  const open = w.spans.ensure(node, undefined, event.timestamp);
  if (open !== undefined) recordError(w.api, open, event.error, event.timestamp);
}

/** Everything beneath the cancelled workflow ends now, as its nodes did in the tree. */
function cancelled(event: CancelledEvent, w: SpanWriter, node: WorkflowNode): void {
  const open = addEvent(event, w, node);
  if (open === undefined) return;
  closeImplicitly(open);
  w.spans.end(open, node.endTime ?? event.timestamp);
}

/** A detached subtree reports elsewhere from now on: its spans end here. */
function detached(event: ChildDetachedEvent, w: SpanWriter): void {
  const child = w.spans.get(event.childId);
  if (child !== undefined) {
    child.span.setAttribute('groundswell.detached', true);
    closeImplicitly(child);
    w.spans.end(child, event.timestamp);
  }
}

function finish(w: SpanWriter, node: WorkflowNode, status: WorkflowStatus, time: number, attributes?: Attributes): OpenSpan | undefined {
  const open = w.spans.ensure(node, undefined, time);
  if (open === undefined) return undefined;
  if (attributes !== undefined) open.span.setAttributes(attributes);
  const budgets = budgetStandingAttributes(node);
  if (budgets !== undefined) open.span.setAttributes(budgets);
  setStatus(w.api, open, status);
  // The node's own end when it has one (an agent call finishes its node, then reports).
  w.spans.end(open, isFinished(node.status) ? (node.endTime ?? time) : time);
  return open;
}

function agentEnded(event: AgentPromptEndEvent, w: SpanWriter, node: WorkflowNode): void {
  const open = w.spans.ensure(node, undefined, event.timestamp);
  if (open === undefined) return;
  // The call ends on its latest answer: a provider model's word for it, as its chat span has it.
  const answer = open.providerAnswer;
  const stopReason = answer !== undefined && answer.stopReason === event.stopReason ? answer.word : event.stopReason;
  const attributes: Attributes = {
    'gen_ai.response.model': event.model,
    ...usageAttributes(event.usage),
    ...finishReasons(stopReason),
    'groundswell.turns': event.turns,
    'groundswell.cached': event.cached,
    'groundswell.replayed': event.replayed === true,
  };
  if (w.captureContent && event.output !== undefined) attributes['gen_ai.output.messages'] = outputMessages(event.output, stopReason);
  open.span.setAttributes(attributes);
  if (event.error !== undefined) recordError(w.api, open, event.error, event.timestamp);
  finish(w, node, event.status, event.timestamp);
}

/** One `chat <model>` span per model request, beneath its agent call's span, ended at once. */
function chat(event: ModelRequestEvent, w: SpanWriter, node: WorkflowNode): void {
  const parent = w.spans.contextOf(node, event.timestamp);
  const call = w.spans.ensure(node, undefined, event.timestamp);
  if (call !== undefined) {
    if (event.providerStopReason === undefined) delete call.providerAnswer;
    else call.providerAnswer = { stopReason: event.stopReason, word: event.providerStopReason };
  }
  const span = w.tracer.startSpan(
    `chat ${event.requestModel}`,
    {
      kind: w.api.SpanKind.CLIENT,
      startTime: event.startTime,
      attributes: {
        'gen_ai.operation.name': 'chat',
        ...providerAttributes(event.provider),
        'gen_ai.request.model': event.requestModel,
        'gen_ai.response.model': event.model,
        ...usageAttributes(event.usage),
        // The provider's own word on the provider path (`tool_calls`), Anthropic's on the native one.
        ...finishReasons(event.providerStopReason ?? event.stopReason),
        'gen_ai.agent.name': event.agentName,
        'groundswell.turn': event.turn,
      },
    },
    parent,
  );
  span.end(Math.max(event.timestamp, event.startTime));
}

function toolEnded(event: ToolInvocationEvent | McpEvent, w: SpanWriter, node: WorkflowNode): void {
  const open = w.spans.ensure(node, event, event.timestamp);
  if (open === undefined) return;
  const attributes: Attributes = {};
  if (event.toolUseId !== undefined) attributes['gen_ai.tool.call.id'] = event.toolUseId;
  if (event.type === 'mcpEvent') attributes['groundswell.mcp.server'] = event.server;
  else {
    if (event.blockedReason !== undefined) attributes['groundswell.tool.blocked_reason'] = event.blockedReason;
    if (event.outcome !== undefined) attributes['groundswell.tool.outcome'] = event.outcome;
  }
  if (w.captureContent) {
    if (event.input !== undefined) attributes['gen_ai.tool.call.arguments'] = capped(JSON.stringify(event.input) ?? '');
    if (event.output !== undefined) attributes['gen_ai.tool.call.result'] = capped(event.output);
  }
  open.span.setAttributes(attributes);
  if (event.isError === true && !open.failed) {
    open.failed = true;
    open.span.setAttribute('error.type', event.type === 'toolInvocation' && event.blockedReason !== undefined ? 'blocked' : 'tool_error');
    open.span.setStatus({ code: w.api.SpanStatusCode.ERROR, message: 'the tool reported an error' });
  }
  finish(w, node, node.status === 'running' ? (event.isError === true ? 'failed' : 'completed') : node.status, event.timestamp);
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
export function closeImplicitly(open: OpenSpan): void {
  const status = open.node.status;
  open.span.setAttribute('groundswell.status', status);
  if (status === 'running' || status === 'idle') open.span.setAttribute('groundswell.abandoned', true);
}
