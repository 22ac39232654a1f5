import type Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { systemClock } from '../../util/clock.js';
import { checkedAnswer } from '../checked-answer.js';
import { loadedAnthropicRuntime } from '../load-anthropic-runtime.js';
import { failedAttemptEvent } from './failed-attempt-event.js';
import type { ModelAdapter, ModelRequestContext } from './model-adapter.js';
import { attemptFailure, retryWaitMs, type SdkErrorClasses } from './sdk-retry-policy.js';

// One adapter per client, so a call costs no allocation for it.
const adapters = new WeakMap<Anthropic, ModelAdapter>();

/** The Anthropic Messages API through the user's (or the offline kit's) client, natively. */
export function anthropicAdapter(client: Anthropic): ModelAdapter {
  let adapter = adapters.get(client);
  if (adapter === undefined) {
    adapter = { provider: 'anthropic', send: (request, context) => send(client, request, context) };
    adapters.set(client, adapter);
  }
  return adapter;
}

/** What one attempt is sent with. */
interface AttemptOptions {
  maxRetries?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/**
 * One model request, its answer checked; streamed for `agent.stream()`. Outside a workflow nobody
 * is told about attempts, so the SDK retries on its own. Inside one, every failed HTTP attempt is
 * an `apiError` event: the attempts are made here, one `maxRetries: 0` request each, under the
 * SDK's own retry policy (decision 0053) — a per-request middleware would put every request on the
 * SDK's slower middleware path just to see the rare failure.
 */
function send(client: Anthropic, params: MessageCreateParamsNonStreaming, context: ModelRequestContext): Promise<Message> {
  const signal = context.tree.signal;
  if (context.tree.workflow === undefined) return attempt(client, params, signal === undefined ? {} : { signal }, context, noAttempts).answer;
  return withAttempts(client, params, context);
}

async function withAttempts(client: Anthropic, params: MessageCreateParamsNonStreaming, context: ModelRequestContext): Promise<Message> {
  const { tree, agentName } = context;
  const maxRetries = client.maxRetries;
  let refreshed = false;
  for (let number = 1; ; number += 1) {
    const options: AttemptOptions = { maxRetries: 0 };
    if (tree.signal) options.signal = tree.signal;
    // What the SDK sends on its own retries: how many came before.
    if (number > 1) options.headers = { 'X-Stainless-Retry-Count': String(number - 1) };
    const sent = attempt(client, params, options, context, () => number);
    try {
      return await sent.answer;
    } catch (error) {
      // A cancelled workflow aborting its own request is not an API problem; an answer that
      // arrived (and failed later, as a malformed body or a broken stream) is not retried.
      if (tree.signal?.aborted === true || sent.connected()) throw error;
      const failure = attemptFailure(error, errorClasses(client));
      if (failure.kind === 'other') throw error;
      tree.emit(failedAttemptEvent(failure, agentName, number));
      const refresh401 = !refreshed && failure.kind === 'http' && failure.status === 401 && usesTokenCache(client);
      if (refresh401) refreshed = true;
      const wait = retryWaitMs(failure, maxRetries - (number - 1), maxRetries, refresh401);
      if (wait === undefined) throw error;
      // Like the SDK: an abort while waiting ends the wait, and the next attempt then fails as aborted.
      await systemClock.sleep(wait, tree.signal).catch(() => undefined);
    }
  }
}

/** One HTTP request (with the SDK's retries unless `options` turns them off), checked. */
function attempt(
  client: Anthropic,
  params: MessageCreateParamsNonStreaming,
  options: AttemptOptions,
  context: ModelRequestContext,
  number: () => number,
): { readonly answer: Promise<Message>; connected(): boolean } {
  const { tree, agentName, onText } = context;
  if (onText === undefined) {
    const pending = client.messages.create(params, options);
    return { answer: checkedAnswer({ agentName, tree, attempt: number, answer: pending, response: () => pending.asResponse() }), connected: notStreamed };
  }
  const stream = client.messages.stream(params, options);
  stream.on('text', (text) => onText(text));
  return {
    answer: checkedAnswer({ agentName, tree, attempt: number, answer: stream.finalMessage(), response: () => Promise.resolve(stream.response) }),
    // A stream that got its response and then failed began answering: the SDK would not retry it either.
    connected: () => stream.response !== undefined && stream.response !== null,
  };
}

/** A non-streamed request fails before its response (an HTTP status, the connection) or not at all on the wire. */
function notStreamed(): boolean {
  return false;
}

function noAttempts(): number {
  return 0;
}

/** The error classes of the client's own SDK copy, whichever the user installed (ours for a client that has none). */
function errorClasses(client: Anthropic): SdkErrorClasses {
  const own = client.constructor as Partial<SdkErrorClasses> | undefined;
  if (typeof own?.APIError === 'function' && typeof own.APIConnectionError === 'function' && typeof own.APIUserAbortError === 'function') {
    return own as SdkErrorClasses;
  }
  return (loadedAnthropicRuntime()?.Anthropic ?? FALLBACK) as SdkErrorClasses;
}

/** Nothing is an instance of these: a client without the SDK's classes only has its errors passed on. */
class Never extends Error {}
const FALLBACK = { APIError: Never, APIConnectionError: Never, APIUserAbortError: Never };

/**
 * Whether the client signs with a cached token (credentials, not an API key): on a 401 the SDK
 * drops that token, and retries once with a fresh one. Read from the client's auth state, which
 * the SDK does not type publicly.
 */
function usesTokenCache(client: Anthropic): boolean {
  const state = (client as unknown as { _authState?: { tokenCache?: unknown } })._authState;
  return state?.tokenCache !== undefined && state.tokenCache !== null;
}
