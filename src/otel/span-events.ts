import type { Attributes } from '@opentelemetry/api';
import type { BudgetStanding } from '../types/budget.js';
import type { RunWaitEvent, WorkflowEvent } from '../types/events.js';
import { dispatchEventWith, type EventTable } from '../types/event-table.js';
import type { SerializedError } from '../util/serialize-error.js';
import { capped } from './capped-text.js';

/** A tree event shown as a span event: its name and attributes. */
export interface SpanEventOf {
  readonly name: string;
  readonly attributes: Attributes;
}

/**
 * The events a user debugging a trace wants on the node's span: checkpoints, sign-offs, retries,
 * reflections, cache hits and misses, API errors, compaction, replays, waits, cancellation, a
 * missing price. Content (critiques, checkpoint text) only with `captureContent`. Undefined for
 * the rest: those that have spans of their own or say nothing a trace needs.
 */
export function spanEventOf(event: WorkflowEvent, captureContent: boolean): SpanEventOf | undefined {
  return dispatchEventWith(SPAN_EVENTS, event, captureContent, undefined);
}

/** Each event type as a span event (the context is `captureContent`), or `'ignore'`. */
const SPAN_EVENTS: EventTable<SpanEventOf | undefined, boolean> = {
  // Starts and ends open and close spans.
  workflowStart: 'ignore',
  workflowEnd: 'ignore',
  // The tree's own bookkeeping: a child's span is beneath its parent's already.
  childAttached: 'ignore',
  childDetached: 'ignore',
  treeUpdated: 'ignore',
  stateSnapshot: 'ignore',
  stepStart: 'ignore',
  stepEnd: 'ignore',
  stepRetry: (event) => ({
    name: 'groundswell.step_retry',
    attributes: { 'groundswell.attempt': event.attempt, 'groundswell.retry.delay_ms': event.delayMs, ...errorAttributes(event.error) },
  }),
  stepReplayed: (event) => ({ name: 'groundswell.step_replayed', attributes: { 'groundswell.status': event.status } }),
  waitStarted: (event) => ({ name: 'groundswell.wait_started', attributes: waitAttributes(event) }),
  signalReceived: (event) => ({ name: 'groundswell.signal_received', attributes: waitAttributes(event) }),
  signalRejected: (event) => ({ name: 'groundswell.signal_rejected', attributes: waitAttributes(event) }),
  taskStart: 'ignore',
  taskEnd: 'ignore',
  // Recorded as the span's exception.
  error: 'ignore',
  cancelled: (event) => ({ name: 'groundswell.cancelled', attributes: { 'groundswell.cancel.reason': event.reason } }),
  observerError: (event) => ({
    name: 'groundswell.observer_error',
    attributes: { 'groundswell.observer.callback': event.callback, ...errorAttributes(event.error) },
  }),
  agentPromptStart: 'ignore',
  agentPromptEnd: 'ignore',
  // A `chat` span of its own.
  agentText: 'ignore',
  modelRequest: 'ignore',
  // An `execute_tool` span of its own.
  toolInvocation: 'ignore',
  mcpEvent: (event) => {
    // A call has a span of its own.
    if (event.phase === 'call') return undefined;
    return {
      name: `groundswell.mcp_${event.phase}`,
      attributes: { 'groundswell.mcp.server': event.server, ...(event.message !== undefined ? { 'groundswell.error.message': capped(event.message) } : {}) },
    };
  },
  apiError: (event) => {
    // The API's error type (`rate_limit_error`) says more than the status; the status stays an attribute.
    const type = event.errorType ?? (event.status === null ? 'connection' : String(event.status));
    const attributes: Attributes = { 'groundswell.attempt': event.attempt, 'error.type': capped(type) };
    if (event.status !== null) attributes['http.response.status_code'] = event.status;
    attributes['groundswell.error.message'] = capped(event.message);
    return { name: 'groundswell.api_error', attributes };
  },
  promptReplaced: (event) => ({ name: 'groundswell.prompt_replaced', attributes: { 'groundswell.replaced_node.id': event.replacedNodeId } }),
  trajectoryCheckpoint: (event, captureContent) => {
    const attributes: Attributes = {
      'gen_ai.agent.name': event.agentName,
      'groundswell.checkpoint.revision': event.revision,
      'groundswell.checkpoint.assessment': event.assessment,
      'groundswell.checkpoint.turn': event.checkpoint.turn,
      'groundswell.checkpoint.injected': event.injected,
    };
    if (captureContent) {
      attributes['groundswell.checkpoint.next_action'] = capped(event.checkpoint.nextAction);
      attributes['groundswell.checkpoint.goal'] = capped(event.checkpoint.goal);
    }
    return { name: 'groundswell.checkpoint', attributes };
  },
  contextCompacted: (event) => ({
    name: 'groundswell.context_compacted',
    attributes: {
      'groundswell.turn': event.turn,
      'groundswell.compaction.dropped_turns': event.droppedTurns,
      'groundswell.compaction.strategy': event.strategy,
      'groundswell.compaction.before_chars': event.beforeChars,
      'groundswell.compaction.after_chars': event.afterChars,
    },
  }),
  goalSignOff: (event) => ({
    name: 'groundswell.goal_sign_off',
    attributes: {
      'groundswell.goal': event.goal,
      'groundswell.sign_off.verdict': event.verdict,
      'groundswell.sign_off.missing': event.missing,
      'groundswell.sign_off.judge_failed': event.judgeFailed,
      'groundswell.plan.path': event.planPath,
    },
  }),
  reflectionStart: (event) => ({
    name: 'groundswell.reflection_start',
    attributes: { 'groundswell.reflection.level': event.level, 'groundswell.attempt': event.attempt, ...errorAttributes(event.error) },
  }),
  reflectionEnd: (event, captureContent) => {
    const attributes: Attributes = {
      'groundswell.reflection.level': event.level,
      'groundswell.attempt': event.attempt,
      'groundswell.status': event.status,
    };
    if (captureContent && event.critique !== undefined) attributes['groundswell.reflection.critique'] = capped(event.critique);
    if (event.error !== undefined) Object.assign(attributes, errorAttributes(event.error));
    return { name: 'groundswell.reflection_end', attributes };
  },
  cacheHit: (event) => ({ name: 'groundswell.cache_hit', attributes: { 'groundswell.cache.key': event.key } }),
  cacheMiss: (event) => {
    const attributes: Attributes = { 'groundswell.cache.miss_reason': event.reason };
    if (event.key !== undefined) attributes['groundswell.cache.key'] = event.key;
    if (event.differs !== undefined) attributes['groundswell.cache.differs'] = [...event.differs];
    return { name: 'groundswell.cache_miss', attributes };
  },
  // A warning like pricingMissing, but not a span event so far (kept so: no consumer shows it yet).
  cacheStoreError: 'ignore',
  // Says why the span has no cost attribute although the agent was given prices.
  pricingMissing: (event) => ({ name: 'groundswell.pricing_missing', attributes: { 'gen_ai.agent.name': event.agentName, 'gen_ai.request.model': event.model } }),
  budgetWaiting: (event) => {
    const attributes: Attributes = { ...budgetAttributes(event), 'groundswell.budget.wait_phase': event.phase, 'groundswell.budget.wait_reason': event.reason };
    if (event.outcome !== undefined) attributes['groundswell.budget.wait_outcome'] = event.outcome;
    return { name: 'groundswell.budget_waiting', attributes };
  },
  budgetWarning: (event) => ({ name: 'groundswell.budget_warning', attributes: { ...budgetAttributes(event), 'groundswell.budget.warn_at': event.warnAt } }),
  budgetExceeded: (event) => ({ name: 'groundswell.budget_exceeded', attributes: budgetAttributes(event) }),
  budgetUsageUnreliable: (event) => {
    const attributes: Attributes = {
      'groundswell.budget.usage_problem': event.reason,
      'gen_ai.provider.name': event.provider,
      'gen_ai.response.model': event.model,
      'gen_ai.request.max_tokens': event.maxTokens,
      'groundswell.budget.booked_tokens': event.booked.tokens,
      'groundswell.budget.booked_usd': event.booked.usd,
    };
    if (event.excess !== undefined) attributes['groundswell.budget.excess_tokens'] = event.excess;
    return { name: 'groundswell.budget_usage_unreliable', attributes };
  },
};

/** Where the budget is and how the limit stood. */
function budgetAttributes(event: BudgetStanding): Attributes {
  return {
    'groundswell.budget.node_id': event.budgetNodeId,
    'groundswell.budget.path': capped(event.budgetPath),
    'groundswell.budget.dimension': event.dimension,
    'groundswell.budget.limit': event.limit,
    'groundswell.budget.spent': event.spent,
    'groundswell.budget.reserved': event.reserved,
    'groundswell.budget.needed': event.needed,
  };
}

/** A wait's signal, its timeout and why a signal was rejected. */
function waitAttributes(event: RunWaitEvent): Attributes {
  const attributes: Attributes = { 'groundswell.signal.name': event.name };
  if (event.timeoutAt !== undefined) attributes['groundswell.signal.timeout_at'] = event.timeoutAt;
  if (event.reason !== undefined) attributes['groundswell.signal.rejected_because'] = event.reason;
  return attributes;
}

/** An error as attributes: `error.type` (the conventions' name) and its message. */
function errorAttributes(error: SerializedError): Attributes {
  return { 'error.type': capped(error.name), 'groundswell.error.message': capped(error.message) };
}
