import { Anthropic, type ClientOptions } from '@anthropic-ai/sdk';
import type { Message } from '@anthropic-ai/sdk/resources/messages';
import { UsageError } from '../errors/groundswell-error.js';
import { buildMessage } from './message-body.js';
import { numberRequest, readFetch, type RecordedRequest, type RequestParts } from './recorded-request.js';
import { ScriptError } from './script-error.js';
import type { ConnectionFailureStep, HttpStep, MessageStep, Responder, ScriptStep } from './script-step.js';
import { abortReason, cutBody, messageEvents, sseBody } from './sse.js';
import { ANSWER_TOOL } from '../agent/structured-output.js';

/** The API key every scripted client sends; it is never a real credential. */
export const SCRIPTED_API_KEY = 'scripted-test-key';
/** `.invalid` cannot resolve, so a request that escaped the scripted fetch fails instead of leaving. */
export const SCRIPTED_BASE_URL = 'http://scripted-model.invalid';

/** Client options a test may set; the credential, base URL and fetch belong to the scripted model. */
export type ScriptedClientOptions = Omit<
  ClientOptions,
  'apiKey' | 'authToken' | 'credentials' | 'config' | 'profile' | 'baseURL' | 'fetch'
>;

/** The `fetch` signature the SDK calls (`(url, init)`, always unbound). */
export type ScriptedFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * One request's answer as the script decided it, before it is put on a wire. Internal: the
 * scripted `fetch` renders it as a Messages API response, `serveChatCompletions` as a Chat
 * Completions one, so both paths share one script, one record and one failure list.
 */
export type ScriptedAnswer =
  | { readonly kind: 'message'; readonly request: RecordedRequest; readonly step: MessageStep; readonly message: Message }
  | { readonly kind: 'http'; readonly request: RecordedRequest; readonly step: HttpStep }
  | { readonly kind: 'connectionFailure'; readonly request: RecordedRequest; readonly step: ConnectionFailureStep }
  /** The script could not answer as written; `failure` is already on `model.failures`. */
  | { readonly kind: 'failure'; readonly request: RecordedRequest; readonly failure: string };

type AnswerEntry = (model: ScriptedModel, parts: RequestParts, signal: AbortSignal | undefined) => Promise<ScriptedAnswer>;
// Set by the class's static block, which may read its private members; declared first so the
// block does not run into the binding's temporal dead zone.
let answerEntry: AnswerEntry | undefined;

/**
 * Records a request read off some wire and decides its answer from the model's script: the one
 * entry both the scripted `fetch` and the Chat Completions server use. Kept off the class so it is
 * not part of `ScriptedModel`'s public API.
 */
export function answerScripted(
  model: ScriptedModel,
  parts: RequestParts,
  signal: AbortSignal | undefined,
): Promise<ScriptedAnswer> {
  if (answerEntry === undefined) throw new Error('ScriptedModel: the class did not initialise its answer entry');
  return answerEntry(model, parts, signal);
}

// `number` is the 1-based script position (or request number, for a responder) used in messages.
type Decision =
  | { readonly step: ScriptStep; readonly number: number }
  | { readonly failure: string; readonly cause?: unknown };

/**
 * A model that answers the real Anthropic SDK client from a script, in place of the network.
 * Only `fetch` is replaced: the SDK still builds the request, retries, parses the JSON and the
 * SSE stream and raises its own error classes, so code under test runs exactly as in production.
 *
 * ```ts
 * const model = new ScriptedModel([httpError(429), json({ answer: 4 })]);
 * const reply = await model.client().messages.create({ model: 'claude-haiku-4-5', max_tokens: 100, messages });
 * model.assertComplete();
 * ```
 */
export class ScriptedModel {
  static {
    answerEntry = (model, parts, signal) => model.#answer(parts, signal);
  }

  readonly #steps: ScriptStep[] | undefined;
  readonly #responder: Responder | undefined;
  #nextStep = 0;
  readonly #requests: RecordedRequest[] = [];
  readonly #failures: string[] = [];
  #firstCause: unknown;

  /**
   * The `fetch` to hand to an Anthropic client. An arrow property, because the SDK calls it
   * detached (`fetch.call(undefined, url, init)`).
   */
  readonly fetch: ScriptedFetch = (input, init) => this.#handle(input, init);

  /** An ordered script (one step per HTTP request, retries included) or a responder function. */
  constructor(script: readonly ScriptStep[] | Responder) {
    if (typeof script === 'function') {
      this.#responder = script;
    } else {
      this.#steps = [...script];
    }
  }

  /**
   * A real SDK client wired to this model. `maxRetries` defaults to the SDK's 2; `timeout`
   * is left to the SDK unless given (its non-streaming long-request check then still applies).
   */
  client(options: ScriptedClientOptions = {}): Anthropic {
    return new Anthropic({
      ...options,
      apiKey: SCRIPTED_API_KEY,
      baseURL: SCRIPTED_BASE_URL,
      fetch: this.fetch,
      maxRetries: options.maxRetries ?? 2,
    });
  }

  /** Every request received, in order, retries included. */
  get requests(): readonly RecordedRequest[] {
    return this.#requests;
  }

  get lastRequest(): RecordedRequest | undefined {
    return this.#requests.at(-1);
  }

  /** Script steps not yet used (always 0 for a responder). */
  get remaining(): number {
    return this.#steps ? this.#steps.length - this.#nextStep : 0;
  }

  /** Requests the script could not answer as written, one message each. */
  get failures(): readonly string[] {
    return this.#failures;
  }

  /** Appends steps to the script, e.g. once a test knows what the next turn should be. */
  push(...steps: ScriptStep[]): this {
    if (!this.#steps) throw new UsageError('ScriptedModel.push(): this model answers with a responder, not a script');
    this.#steps.push(...steps);
    return this;
  }

  /** Throws `ScriptError` if any step is left unused or any request could not be answered. */
  assertComplete(): void {
    const unused = (this.#steps ?? [])
      .slice(this.#nextStep)
      .map((step, i) => `#${this.#nextStep + i + 1} ${step.label}`);
    if (unused.length === 0 && this.#failures.length === 0) return;
    const lines: string[] = [];
    if (unused.length > 0) {
      const noun = unused.length === 1 ? 'step was' : 'steps were';
      lines.push(`${unused.length} script ${noun} not used: ${unused.join(', ')}`);
    }
    lines.push(...this.#failures);
    throw new ScriptError(`ScriptedModel: the script did not run as written:\n- ${lines.join('\n- ')}`, {
      unusedSteps: unused,
      failures: [...this.#failures],
      cause: this.#firstCause,
    });
  }

  async #handle(input: string | URL | Request, init: RequestInit | undefined): Promise<Response> {
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined) ?? undefined;
    const answer = await this.#answer(readFetch(input, init), signal);
    switch (answer.kind) {
      case 'message':
        return answerMessage(answer, signal);
      case 'http':
        return answerHttp(answer.step, answer.request);
      case 'connectionFailure':
        throw connectionFailure(answer.step);
      case 'failure':
        // A 400 with x-should-retry: false, so the SDK surfaces it at once as BadRequestError
        // instead of retrying into the same hole.
        return jsonResponse(
          400,
          {
            type: 'error',
            error: { type: 'invalid_request_error', message: answer.failure },
            request_id: requestId(answer.request),
          },
          { 'x-should-retry': 'false' },
          answer.request,
        );
    }
  }

  async #answer(parts: RequestParts, signal: AbortSignal | undefined): Promise<ScriptedAnswer> {
    const request = numberRequest(this.#requests.length, parts);
    this.#requests.push(request);
    // Taken before any await, so concurrent requests get steps in the order they were sent.
    const decision = this.#responder ? await ask(this.#responder, request) : this.#takeScripted(request);
    if ('failure' in decision) return this.#fail(request, decision.failure, decision.cause);
    const { step, number } = decision;
    if (step.kind === 'message' && step.delivery === 'stream' && !request.stream) {
      return this.#fail(
        request,
        `ScriptedModel: request #${request.index + 1} did not ask for a stream, but script step #${number} is ${step.label}`,
      );
    }
    await pause(step.delayMs, signal);
    switch (step.kind) {
      case 'message': {
        const context = { requestNumber: request.index + 1, requestModel: request.model };
        const message = buildMessage(step.template, context);
        const asTool = step.structured !== undefined && forcesAnswerTool(request.body);
        return { kind: 'message', request, step, message: asTool ? answerToolCall(message, step.structured, request.index + 1) : message };
      }
      case 'http':
        return { kind: 'http', request, step };
      case 'networkError':
      case 'timeout':
        return { kind: 'connectionFailure', request, step };
    }
  }

  #takeScripted(request: RecordedRequest): Decision {
    const steps = this.#steps ?? [];
    const step = steps[this.#nextStep];
    if (step === undefined) {
      return {
        failure:
          `ScriptedModel: unexpected request #${request.index + 1} ` +
          `(model ${request.model ?? '(none)'}, first user text ${preview(request.firstUserText)}): ` +
          `all ${steps.length} script step${steps.length === 1 ? '' : 's'} were already used`,
      };
    }
    this.#nextStep += 1;
    return { step, number: this.#nextStep };
  }

  // Remembered so assertComplete() fails even if the error the request got was caught.
  #fail(request: RecordedRequest, failure: string, cause?: unknown): ScriptedAnswer {
    this.#failures.push(failure);
    if (cause !== undefined && this.#firstCause === undefined) this.#firstCause = cause;
    return { kind: 'failure', request, failure };
  }
}

async function ask(responder: Responder, request: RecordedRequest): Promise<Decision> {
  const number = request.index + 1;
  try {
    const step: unknown = await responder(request, request.index);
    if (isStep(step)) return { step, number };
    return { failure: `ScriptedModel: the responder returned no script step for request #${number}` };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { failure: `ScriptedModel: the responder threw on request #${number}: ${reason}`, cause: error };
  }
}

function answerMessage(answer: ScriptedAnswer & { kind: 'message' }, signal: AbortSignal | undefined): Response {
  const { message, step, request } = answer;
  if (!request.stream) return jsonResponse(200, message, {}, request);
  return new Response(sseBody(messageEvents(message, step.streamOptions), signal, step.streamOptions.cutAfterEvents), {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'request-id': requestId(request),
    },
  });
}

function answerHttp(step: HttpStep, request: RecordedRequest): Response {
  const text = typeof step.body === 'string' ? step.body : JSON.stringify(step.body);
  const body = step.cutAfterBytes === undefined ? text : cutBody(text ?? '', step.cutAfterBytes);
  return new Response(body, { status: step.status, headers: { 'request-id': requestId(request), ...step.headers } });
}

function jsonResponse(
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>>,
  request: RecordedRequest,
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'request-id': requestId(request), ...headers },
  });
}

// Shaped like undici's own failures ("fetch failed" with the reason as `cause`), which is what
// the SDK inspects to tell a timeout from other connection errors.
function connectionFailure(step: ConnectionFailureStep): TypeError {
  const cause = new Error(step.message);
  if (step.kind === 'timeout') {
    cause.name = 'ConnectTimeoutError';
    Object.assign(cause, { code: 'UND_ERR_CONNECT_TIMEOUT' });
  } else {
    Object.assign(cause, { code: 'ECONNREFUSED' });
  }
  return new TypeError('fetch failed', { cause });
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal ? abortReason(signal) : new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function isStep(value: unknown): value is ScriptStep {
  return (
    typeof value === 'object' &&
    value !== null &&
    'kind' in value &&
    (value.kind === 'message' || value.kind === 'http' || value.kind === 'networkError' || value.kind === 'timeout')
  );
}

/** The id a response to this request carries in its request-id header. */
export function requestId(request: RecordedRequest): string {
  return `req_scripted_${String(request.index + 1).padStart(4, '0')}`;
}

function preview(text: string | undefined): string {
  if (text === undefined) return '(none)';
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 59)}…` : text);
}

/** The request makes the model answer through the structured-answer tool (it has no other way). */
function forcesAnswerTool(body: RecordedRequest['body']): boolean {
  const tools = (body.tools ?? []) as ReadonlyArray<{ name?: unknown }>;
  if (!tools.some((tool) => tool.name === ANSWER_TOOL)) return false;
  const choice = body.tool_choice as { type?: unknown; name?: unknown } | undefined;
  return choice?.type === 'any' || (choice?.type === 'tool' && choice.name === ANSWER_TOOL);
}

/** A `json()` answer as the structured-answer tool's call, with the step's usage. */
function answerToolCall(message: Message, value: unknown, requestNumber: number): Message {
  return {
    ...message,
    content: [{ type: 'tool_use', id: `toolu_answer_${requestNumber}`, name: ANSWER_TOOL, input: value } as Message['content'][number]],
    stop_reason: 'tool_use',
  };
}
