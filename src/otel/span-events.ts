import type { Attributes } from '@opentelemetry/api';
import type { WorkflowEvent } from '../types/events.js';
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
 * missing price.
 * Content (critiques, checkpoint text) only with `captureContent`. Undefined for the rest.
 */
export function spanEventOf(event: WorkflowEvent, captureContent: boolean): SpanEventOf | undefined {
  switch (event.type) {
    case 'trajectoryCheckpoint': {
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
    }
    case 'goalSignOff':
      return {
        name: 'groundswell.goal_sign_off',
        attributes: {
          'groundswell.goal': event.goal,
          'groundswell.sign_off.verdict': event.verdict,
          'groundswell.sign_off.missing': event.missing,
          'groundswell.sign_off.judge_failed': event.judgeFailed,
          'groundswell.plan.path': event.planPath,
        },
      };
    case 'stepRetry':
      return {
        name: 'groundswell.step_retry',
        attributes: { 'groundswell.attempt': event.attempt, 'groundswell.retry.delay_ms': event.delayMs, ...errorAttributes(event.error) },
      };
    case 'reflectionStart':
      return {
        name: 'groundswell.reflection_start',
        attributes: { 'groundswell.reflection.level': event.level, 'groundswell.attempt': event.attempt, ...errorAttributes(event.error) },
      };
    case 'reflectionEnd': {
      const attributes: Attributes = {
        'groundswell.reflection.level': event.level,
        'groundswell.attempt': event.attempt,
        'groundswell.status': event.status,
      };
      if (captureContent && event.critique !== undefined) attributes['groundswell.reflection.critique'] = capped(event.critique);
      if (event.error !== undefined) Object.assign(attributes, errorAttributes(event.error));
      return { name: 'groundswell.reflection_end', attributes };
    }
    case 'cacheHit':
      return { name: 'groundswell.cache_hit', attributes: { 'groundswell.cache.key': event.key } };
    case 'cacheMiss': {
      const attributes: Attributes = { 'groundswell.cache.miss_reason': event.reason };
      if (event.key !== undefined) attributes['groundswell.cache.key'] = event.key;
      if (event.differs !== undefined) attributes['groundswell.cache.differs'] = [...event.differs];
      return { name: 'groundswell.cache_miss', attributes };
    }
    case 'apiError': {
      // The API's error type (`rate_limit_error`) says more than the status; the status stays an attribute.
      const type = event.errorType ?? (event.status === null ? 'connection' : String(event.status));
      const attributes: Attributes = { 'groundswell.attempt': event.attempt, 'error.type': capped(type) };
      if (event.status !== null) attributes['http.response.status_code'] = event.status;
      attributes['groundswell.error.message'] = capped(event.message);
      return { name: 'groundswell.api_error', attributes };
    }
    case 'contextCompacted':
      return {
        name: 'groundswell.context_compacted',
        attributes: {
          'groundswell.turn': event.turn,
          'groundswell.compaction.dropped_turns': event.droppedTurns,
          'groundswell.compaction.strategy': event.strategy,
          'groundswell.compaction.before_chars': event.beforeChars,
          'groundswell.compaction.after_chars': event.afterChars,
        },
      };
    case 'pricingMissing':
      // Says why the span has no cost attribute although the agent was given prices.
      return { name: 'groundswell.pricing_missing', attributes: { 'gen_ai.agent.name': event.agentName, 'gen_ai.request.model': event.model } };
    case 'promptReplaced':
      return { name: 'groundswell.prompt_replaced', attributes: { 'groundswell.replaced_node.id': event.replacedNodeId } };
    case 'stepReplayed':
      return { name: 'groundswell.step_replayed', attributes: { 'groundswell.status': event.status } };
    case 'waitStarted':
    case 'signalReceived':
    case 'signalRejected': {
      const attributes: Attributes = { 'groundswell.signal.name': event.name };
      if (event.timeoutAt !== undefined) attributes['groundswell.signal.timeout_at'] = event.timeoutAt;
      if (event.reason !== undefined) attributes['groundswell.signal.rejected_because'] = event.reason;
      const names = { waitStarted: 'groundswell.wait_started', signalReceived: 'groundswell.signal_received', signalRejected: 'groundswell.signal_rejected' };
      return { name: names[event.type], attributes };
    }
    case 'mcpEvent':
      if (event.phase === 'call') return undefined;
      return {
        name: `groundswell.mcp_${event.phase}`,
        attributes: { 'groundswell.mcp.server': event.server, ...(event.message !== undefined ? { 'groundswell.error.message': capped(event.message) } : {}) },
      };
    case 'cancelled':
      return { name: 'groundswell.cancelled', attributes: { 'groundswell.cancel.reason': event.reason } };
    case 'observerError':
      return { name: 'groundswell.observer_error', attributes: { 'groundswell.observer.callback': event.callback, ...errorAttributes(event.error) } };
    default:
      return undefined;
  }
}

/** An error as attributes: `error.type` (the conventions' name) and its message. */
function errorAttributes(error: SerializedError): Attributes {
  return { 'error.type': capped(error.name), 'groundswell.error.message': capped(error.message) };
}
