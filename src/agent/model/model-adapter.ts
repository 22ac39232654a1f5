import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import type { CallTree } from '../call-tree.js';

/** What an adapter may use while it sends one request of a call. */
export interface ModelRequestContext {
  readonly agentName: string;
  /** The call's node: failed HTTP attempts are reported on it, its signal cancels the request. */
  readonly tree: CallTree;
  /** Set for `agent.stream()`: the answer's text as it arrives. */
  readonly onText: ((text: string) => void) | undefined;
  /** With `onText`, when the call's tree streams text: the model's reasoning as it arrives, where it gives it. */
  readonly onReasoning?: ((text: string) => void) | undefined;
  /** Set when budgets enclose the call: an adapter asks it before each retry it would send. */
  readonly beforeRetry?: BeforeRetry | undefined;
}

/**
 * Asked before attempt `attempt` (2, 3, ...) of a request is sent, with the failure it retries.
 * Throws, or rejects, when the retry may not be sent (a budget refused it): the adapter then
 * fails the request with that error instead.
 */
export type BeforeRetry = (attempt: number, failure: unknown) => void | Promise<void>;

/**
 * The one model interface the tool loop calls. The loop keeps its conversation, tools and answers
 * in the Messages API's shapes; an adapter sends one request to its provider and resolves to the
 * answer in that shape, checked (a malformed answer or an API failure is a typed agent error).
 * The Anthropic client is the first implementation.
 */
export interface ModelAdapter {
  /**
   * The provider's whole id: `anthropic` for the Anthropic client, a model object's `provider` as
   * it is (`corp.gateway.chat`). Cache keys, call fingerprints and prices tell providers apart by
   * it; spans, events and errors show its family (`providerFamily`).
   */
  readonly provider: string;
  send(request: MessageCreateParamsNonStreaming, context: ModelRequestContext): Promise<ModelAnswer>;
}

/** An answer in the Messages API's shape, as an adapter resolves to it. */
export interface ModelAnswer extends Message {
  /**
   * The provider's own word for why the answer ended (`tool_calls`, `stop`), when a provider model
   * gave one: `stop_reason` is Anthropic's word the loop reads, spans report the provider's.
   */
  readonly providerStopReason?: string;
}
