import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { UsageError } from '../../errors/groundswell-error.js';
import { systemClock } from '../../util/clock.js';
import { errorMessage } from '../../util/describe.js';
import { MalformedResponseError, ProviderApiError } from '../agent-errors.js';
import type { LanguageModelLike, ProviderCallOptions, ProviderContent, ProviderStreamPart } from './language-model.js';
import { ANSWER_TOOL } from '../structured-output.js';
import type { ModelAdapter, ModelAnswer, ModelRequestContext } from './model-adapter.js';
import { toMessage, UnreadableAnswer, type ProviderAnswer } from './provider-answer.js';
import { providerFamily } from './provider-family.js';
import { providerCallOptions } from './provider-request.js';
import { requestSignal } from './request-signal.js';
import { streamErrorText } from './stream-error-text.js';

/** Retries of a failed request (the Anthropic client's default too), with a doubling wait. */
const MAX_RETRIES = 2;
const FIRST_WAIT_MS = 500;

const adapters = new WeakMap<LanguageModelLike, ModelAdapter>();

/** Any model of the AI SDK provider specification, behind the loop's one model interface. */
export function providerAdapter(model: LanguageModelLike): ModelAdapter {
  let adapter = adapters.get(model);
  if (adapter === undefined) {
    // The whole id: keys, fingerprints and prices tell `corp.gateway.chat` from `corp.backup.chat`.
    adapter = { provider: model.provider, send: (request, context) => send(model, request, context) };
    adapters.set(model, adapter);
  }
  return adapter;
}

/**
 * One request with its retries, on a signal linked to the run's (see request-signal.ts). One
 * async frame for the whole request: this runs on every model call.
 */
async function send(model: LanguageModelLike, params: MessageCreateParamsNonStreaming, context: ModelRequestContext): Promise<ModelAnswer> {
  const outer = context.tree.signal;
  const link = outer === undefined ? undefined : requestSignal(outer);
  const options = providerCallOptions(params, link?.signal);
  try {
    for (let attempt = 1; ; attempt += 1) {
      try {
        if (context.onText !== undefined) return toMessage(await stream(model, options, context.onText, context.onReasoning));
        const result = await model.doGenerate(options);
        refuseUnsupported(model, result.warnings);
        return toMessage({
          content: result.content,
          finishReason: result.finishReason,
          usage: result.usage,
          id: result.response?.id,
          modelId: result.response?.modelId ?? model.modelId,
        });
      } catch (error) {
        const failure = failedAttempt(model, context, attempt, error);
        if (failure !== RETRY) throw failure;
        // A retry is one more request sent: the call's budgets may refuse it (this failure its cause).
        if (context.beforeRetry !== undefined) await context.beforeRetry(attempt + 1, error);
        await systemClock.sleep(FIRST_WAIT_MS * 2 ** (attempt - 1), context.tree.signal);
      }
    }
  } finally {
    link?.release();
  }
}

/** `failedAttempt`'s answer for "wait and try again" (a thrown value may be anything, undefined too). */
const RETRY = Symbol('retry');

/**
 * What a failed attempt comes to: the error to throw, or RETRY. Every failure of the provider is
 * an `apiError` event on the call's node.
 */
function failedAttempt(model: LanguageModelLike, context: ModelRequestContext, attempt: number, error: unknown): unknown {
  if (context.tree.signal?.aborted === true || error instanceof UsageError) return error;
  const status = statusOf(error);
  // An answer came but cannot be read (not JSON, not a completion, a stream cut off after it
  // began): like the native path, one MalformedResponseError, and never sent twice.
  if (error instanceof UnreadableAnswer || (status !== null && status >= 200 && status < 300) || isAnswerShapeError(error)) {
    const problem = error instanceof UnreadableAnswer ? error.message : errorMessage(error);
    const message = `The ${providerFamily(model.provider)} model answered but not with a readable answer: ${problem}.`;
    context.tree.emit({ type: 'apiError', agentName: context.agentName, attempt, status: status ?? 200, message });
    return new MalformedResponseError(`Agent "${context.agentName}": ${message}`, context.agentName, status ?? 200, undefined, problem, { cause: error });
  }
  context.tree.emit({ type: 'apiError', agentName: context.agentName, attempt, status, message: errorMessage(error) });
  if (attempt <= MAX_RETRIES && retryable(error, status)) return RETRY;
  return new ProviderApiError(
    `Agent "${context.agentName}": ${providerFamily(model.provider)} model "${model.modelId}" failed${status === null ? '' : ` with status ${status}`}: ${errorMessage(error)}`,
    context.agentName,
    providerFamily(model.provider),
    model.modelId,
    status,
    { cause: error },
  );
}

// The AI SDK's errors for an answer of the wrong shape (by name: the packages are not imported).
const ANSWER_SHAPE_ERRORS = new Set(['AI_JSONParseError', 'AI_TypeValidationError', 'AI_InvalidResponseDataError', 'AI_EmptyResponseBodyError', 'AI_NoContentGeneratedError']);

function isAnswerShapeError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && ANSWER_SHAPE_ERRORS.has(String((error as { name?: unknown }).name));
}

/** Streams the answer's text as it arrives; the tool calls and usage come whole at the end. */
async function stream(
  model: LanguageModelLike,
  options: ProviderCallOptions,
  onText: (text: string) => void,
  onReasoning: ((text: string) => void) | undefined,
): Promise<ProviderAnswer> {
  const { stream: parts } = await model.doStream(options);
  const content: ProviderContent[] = [];
  let text = '';
  let finishReason: unknown;
  let usage: unknown;
  let id: string | undefined;
  let modelId = model.modelId;
  // A forced answer tool's input is the answer's JSON: streamed as the answer's text, as a
  // native JSON answer is, so a page can show it as it is written.
  let answerInput: string | undefined;
  const reader = parts.getReader();
  for (;;) {
    let next: Awaited<ReturnType<typeof reader.read>>;
    try {
      next = await reader.read();
    } catch (error) {
      throw new UnreadableAnswer(`the stream broke off (${errorMessage(error)})`, { cause: error });
    }
    const { done, value } = next;
    if (done) break;
    const part: ProviderStreamPart = value;
    if (part.type === 'text-delta' && typeof part.delta === 'string') {
      text += part.delta;
      onText(part.delta);
    } else if (part.type === 'reasoning-delta' && typeof part.delta === 'string') {
      onReasoning?.(part.delta);
    } else if (part.type === 'tool-input-start' && part.toolName === ANSWER_TOOL) {
      answerInput = part.id;
    } else if (part.type === 'tool-input-delta' && answerInput !== undefined && part.id === answerInput && typeof part.delta === 'string') {
      onText(part.delta);
    } else if (part.type === 'tool-call') {
      content.push(part);
    } else if (part.type === 'stream-start') {
      refuseUnsupported(model, part.warnings);
    } else if (part.type === 'response-metadata') {
      if (part.modelId !== undefined) modelId = part.modelId;
      if (part.id !== undefined) id = part.id;
    } else if (part.type === 'finish') {
      finishReason = part.finishReason;
      usage = part.usage;
    } else if (part.type === 'error') {
      throw new UnreadableAnswer(`the stream reported an error: ${streamErrorText(part.error)}`, { cause: part.error });
    }
  }
  if (text !== '') content.unshift({ type: 'text', text });
  return { content, finishReason, usage, id, modelId };
}

const NEEDED_FEATURES = new Set(['tools', 'toolChoice', 'responseFormat']);

/**
 * A model that cannot do what the request needs says so in its warnings (v3 `unsupported` with a
 * feature, v2 `unsupported-setting`): that is misuse, named, not a wrong answer later.
 */
function refuseUnsupported(model: LanguageModelLike, warnings: ReadonlyArray<unknown> | undefined): void {
  for (const warning of warnings ?? []) {
    const w = warning as { type?: unknown; feature?: unknown; setting?: unknown; details?: unknown };
    const feature = w.type === 'unsupported' ? w.feature : w.type === 'unsupported-setting' ? w.setting : undefined;
    if (typeof feature !== 'string' || !NEEDED_FEATURES.has(feature)) continue;
    const details = typeof w.details === 'string' ? ` (${w.details})` : '';
    throw new UsageError(`The ${model.provider} model "${model.modelId}" does not support ${feature}, which this prompt needs${details}.`);
  }
}

/** The HTTP status of a provider error (`APICallError.statusCode`), or null when none came. */
function statusOf(error: unknown): number | null {
  if (typeof error !== 'object' || error === null) return null;
  const status = (error as { statusCode?: unknown; status?: unknown }).statusCode ?? (error as { status?: unknown }).status;
  return typeof status === 'number' ? status : null;
}

function retryable(error: unknown, status: number | null): boolean {
  const flagged = typeof error === 'object' && error !== null ? (error as { isRetryable?: unknown }).isRetryable : undefined;
  if (typeof flagged === 'boolean') return flagged;
  return status === null || status === 408 || status === 409 || status === 429 || status >= 500;
}
