import type Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { systemClock } from '../../util/clock.js';
import { checkedAnswer } from '../checked-answer.js';
import { loadedAnthropicRuntime } from '../load-anthropic-runtime.js';
import { failedAttemptEvent } from './failed-attempt-event.js';
import type { ModelAdapter, ModelRequestContext } from './model-adapter.js';
import { ANSWER_TOOL } from '../structured-output.js';
import { attemptFailure, retryWaitMs, type SdkErrorClasses } from './sdk-retry-policy.js';

// One adapter per client, so a call costs no allocation for it.
const adapters = new WeakMap<Anthropic, ModelAdapter>();

/**
 * The adapter of one client. A class, not a literal with an arrow per client: every client's
 * `send` is one function, so code that calls it is not thrown away when a client is collected
 * (code that had inlined a client's own arrow was, each time an app or a test replaced its
 * client, and ran slowly until optimized again; decision 0093).
 */
class AnthropicAdapter implements ModelAdapter {
  readonly provider = 'anthropic';
  constructor(private readonly client: Anthropic) {}

  send(request: MessageCreateParamsNonStreaming, context: ModelRequestContext): Promise<Message> {
    return send(this.client, request, context);
  }
}

/** The Anthropic Messages API through the user's (or the offline kit's) client, natively. */
export function anthropicAdapter(client: Anthropic): ModelAdapter {
  let adapter = adapters.get(client);
  if (adapter === undefined) {
    adapter = new AnthropicAdapter(client);
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
 * is told about attempts, so the SDK retries on its own. Inside one, where every failed HTTP
 * attempt is an `apiError` event, and under budgets, which count every retry as a request, the
 * attempts are made here, one `maxRetries: 0` request each, under the
 * SDK's own retry policy (decision 0053) — a per-request middleware would put every request on the
 * SDK's slower middleware path just to see the rare failure.
 */
function send(client: Anthropic, params: MessageCreateParamsNonStreaming, context: ModelRequestContext): Promise<Message> {
  const signal = context.tree.signal;
  if (context.tree.workflow === undefined && context.beforeRetry === undefined) {
    return attempt(client, params, signal === undefined ? {} : { signal }, context, noAttempts).answer;
  }
  return withAttempts(client, params, context);
}

/** The first attempt without an async frame of its own: the retry loop runs only after a failure. */
function withAttempts(client: Anthropic, params: MessageCreateParamsNonStreaming, context: ModelRequestContext): Promise<Message> {
  // Assigned before any failure can reach `recover` (answers settle on a later turn).
  let first: Attempt | undefined;
  const recover = (error: unknown): Promise<Message> => retried(error, first as Attempt, client, params, context);
  first = attempt(client, params, attemptOptions(context.tree.signal, 1), context, firstAttempt, recover);
  return first.answer;
}

/** After attempt 1 failed with `error`: the next attempts, until one answers or the policy gives up. */
async function retried(error: unknown, failed: Attempt, client: Anthropic, params: MessageCreateParamsNonStreaming, context: ModelRequestContext): Promise<Message> {
  const { tree, agentName } = context;
  const maxRetries = client.maxRetries;
  let refreshed = false;
  let sent = failed;
  let lastError = error;
  for (let number = 1; ; number += 1) {
    // A cancelled workflow aborting its own request is not an API problem; an answer that
    // arrived (and failed later, as a malformed body or a broken stream) is not retried.
    if (tree.signal?.aborted === true || sent.connected()) throw lastError;
    const failure = attemptFailure(lastError, errorClasses(client));
    if (failure.kind === 'other') throw lastError;
    tree.emit(failedAttemptEvent(failure, agentName, number));
    const refresh401 = !refreshed && failure.kind === 'http' && failure.status === 401 && usesTokenCache(client);
    if (refresh401) refreshed = true;
    const wait = retryWaitMs(failure, maxRetries - (number - 1), maxRetries, refresh401);
    if (wait === undefined) throw lastError;
    // A retry is one more request sent: the call's budgets may refuse it (this failure its cause).
    if (context.beforeRetry !== undefined) await context.beforeRetry(number + 1, lastError);
    // Like the SDK: an abort while waiting ends the wait, and the next attempt then fails as aborted.
    await systemClock.sleep(wait, tree.signal).catch(() => undefined);
    const next = number + 1;
    sent = attempt(client, params, attemptOptions(tree.signal, next), context, () => next);
    try {
      return await sent.answer;
    } catch (caught) {
      lastError = caught;
    }
  }
}

/** Attempt `number`'s options: no retries of the SDK's own, the run's signal, and (as the SDK sends on its retries) how many came before. */
function attemptOptions(signal: AbortSignal | undefined, number: number): AttemptOptions {
  // Whole literals, not fields added one by one: a literal's shape lives as long as its code
  // (shapes made by adding fields die with their last object, and the code using them with them).
  if (number === 1) return signal ? { maxRetries: 0, signal } : { maxRetries: 0 };
  const headers = { 'X-Stainless-Retry-Count': String(number - 1) };
  return signal ? { maxRetries: 0, signal, headers } : { maxRetries: 0, headers };
}

function firstAttempt(): number {
  return 1;
}

/** One request on its way: its checked answer, and whether an answer had begun arriving when it failed. */
interface Attempt {
  readonly answer: Promise<Message>;
  connected(): boolean;
}

/** One HTTP request (with the SDK's retries unless `options` turns them off), checked. */
function attempt(
  client: Anthropic,
  params: MessageCreateParamsNonStreaming,
  options: AttemptOptions,
  context: ModelRequestContext,
  number: () => number,
  /** Where a failed attempt goes on (the next attempts); undefined: the failure is the answer. */
  recover?: (error: unknown) => Promise<Message>,
): Attempt {
  const { tree, agentName, onText, onReasoning } = context;
  if (onText === undefined) {
    const pending = client.messages.create(params, options);
    return { answer: checkedAnswer({ agentName, tree, attempt: number, answer: pending, response: () => pending.asResponse() }, recover), connected: notStreamed };
  }
  const stream = client.messages.stream(params, options);
  stream.on('text', (text) => onText(text));
  if (onReasoning !== undefined) stream.on('thinking', (thinking) => onReasoning(thinking));
  // A forced answer tool's input is the answer's JSON: streamed as its text, as a JSON answer is.
  let answerBlock = -1;
  stream.on('streamEvent', (event) => {
    if (event.type === 'content_block_start') answerBlock = event.content_block.type === 'tool_use' && event.content_block.name === ANSWER_TOOL ? event.index : answerBlock;
    else if (event.type === 'content_block_delta' && event.index === answerBlock && event.delta.type === 'input_json_delta') onText(event.delta.partial_json);
  });
  return {
    answer: checkedAnswer({ agentName, tree, attempt: number, answer: stream.finalMessage(), response: () => Promise.resolve(stream.response) }, recover),
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
