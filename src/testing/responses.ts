import type { ErrorType } from '@anthropic-ai/sdk/resources/shared';
import { UsageError } from '../errors/groundswell-error.js';
import type {
  ConnectionFailureStep,
  ContentBlockInput,
  HttpStep,
  MessageStep,
  MessageTemplate,
  ResponseOptions,
  StreamOptions,
  ToolUseBlockInput,
} from './script-step.js';

/** One tool call in a multi-call `toolUse([...])`. */
export interface ToolCall {
  name: string;
  /** The tool's arguments; a JSON object, as the API always sends. */
  input: Readonly<Record<string, unknown>>;
  /** Default: `toolu_scripted_<request number>_<block position>`. */
  id?: string;
}

export interface ToolUseOptions extends ResponseOptions {
  /** The tool_use block's id (single-call form). */
  id?: string;
  /** A text block before the call(s), as models often say what they are about to do. */
  text?: string;
}

export interface HttpErrorOptions {
  /**
   * Default from the status: 429 `rate_limit_error`, 529 `overloaded_error`, 500 `api_error`...
   * Any string is sent as given, for error types newer than this SDK's list.
   */
  type?: ErrorType | (string & {});
  message?: string;
  /**
   * `retry-after-ms` header. Default 1: the SDK sleeps that long before retrying. (It treats 0
   * as "no hint" and falls back to its 0.5s+ exponential backoff, so 0 would slow tests.)
   * `null` sends no header.
   */
  retryAfterMs?: number | null;
  /** `x-should-retry` header, which overrides the SDK's status-based retry decision. */
  shouldRetry?: boolean;
  headers?: Readonly<Record<string, string>>;
  delayMs?: number;
}

export interface RawResponseOptions {
  headers?: Readonly<Record<string, string>>;
  delayMs?: number;
  /**
   * Send only the first bytes of the body, then fail it as undici does when the connection
   * drops mid-body (`TypeError: terminated`): a body cut by a proxy or the network.
   */
  cutAfterBytes?: number;
}

export interface ConnectionFailureOptions {
  message?: string;
  /** Wait this long before failing. */
  delayMs?: number;
}

/** A plain assistant text reply (stop_reason `end_turn`). */
export function text(value: string, opts: ResponseOptions = {}): MessageStep {
  return messageStep(`text(${preview(value)})`, [{ type: 'text', text: value }], opts);
}

/**
 * A reply whose text is `JSON.stringify(value)`: what the API returns for native structured
 * output (`output_config.format`).
 */
export function json(value: unknown, opts: ResponseOptions = {}): MessageStep {
  let encoded: string | undefined;
  try {
    encoded = JSON.stringify(value);
  } catch (error) {
    throw new UsageError('json(): the value cannot be serialised to JSON', { cause: error });
  }
  if (encoded === undefined) throw new UsageError('json(): the value cannot be serialised to JSON');
  const step = messageStep(`json(${preview(encoded)})`, [{ type: 'text', text: encoded }], opts);
  // Only an object can be a tool call's input.
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? freezeStep({ ...step, structured: value }) : step;
}

/** A text reply that is not valid JSON, for exercising structured-output failure handling. */
export function malformedJson(
  value = '{"answer": 42, "reason": "the model stopped mid-',
  opts: ResponseOptions = {},
): MessageStep {
  return messageStep(`malformedJson(${preview(value)})`, [{ type: 'text', text: value }], opts);
}

/** The model calls one tool (stop_reason `tool_use`). */
export function toolUse(name: string, input: Readonly<Record<string, unknown>>, opts?: ToolUseOptions): MessageStep;
/** The model calls several tools in one turn. */
export function toolUse(calls: readonly ToolCall[], opts?: Omit<ToolUseOptions, 'id'>): MessageStep;
export function toolUse(
  nameOrCalls: string | readonly ToolCall[],
  input?: Readonly<Record<string, unknown>> | Omit<ToolUseOptions, 'id'>,
  maybeOpts?: ToolUseOptions,
): MessageStep {
  const single = typeof nameOrCalls === 'string';
  const opts: ToolUseOptions = (single ? maybeOpts : input) ?? {};
  const calls: readonly ToolCall[] = single
    ? [{ name: nameOrCalls, input: input ?? {}, ...(opts.id === undefined ? {} : { id: opts.id }) }]
    : nameOrCalls;
  if (calls.length === 0) throw new UsageError('toolUse(): give at least one tool call');
  const blocks: ContentBlockInput[] = opts.text === undefined ? [] : [{ type: 'text', text: opts.text }];
  for (const call of calls) {
    if (typeof call.input !== 'object' || call.input === null || Array.isArray(call.input)) {
      throw new UsageError(`toolUse(): the input of "${call.name}" must be a JSON object, as the API sends`);
    }
    const block: ToolUseBlockInput = { type: 'tool_use', name: call.name, input: call.input };
    blocks.push(call.id === undefined ? block : { ...block, id: call.id });
  }
  return messageStep(`toolUse(${calls.map((c) => c.name).join(', ')})`, blocks, { stopReason: 'tool_use', ...opts });
}

/** Full control: any Message fields; the rest is filled in per request. */
export function message(template: MessageTemplate, opts: Pick<ResponseOptions, 'delayMs'> = {}): MessageStep {
  const kinds = (template.content ?? []).map((block) => block.type);
  return freezeStep({
    kind: 'message',
    label: `message(${kinds.join(', ')})`,
    template,
    delivery: 'auto',
    streamOptions: {},
    delayMs: opts.delayMs ?? 0,
  });
}

/**
 * The same message as server-sent events. Any message step answers a `stream: true` request as
 * SSE on its own; `stream()` additionally insists on it (a non-streaming request meeting it is a
 * script failure) and takes chunking and mid-stream-error options.
 */
export function stream(
  stepOrBlocks: MessageStep | readonly ContentBlockInput[],
  opts: ResponseOptions & StreamOptions = {},
): MessageStep {
  const base = isMessageStep(stepOrBlocks) ? stepOrBlocks : message({ content: stepOrBlocks });
  const { chunkSize, interruptWith, cutAfterEvents, delayMs, ...response } = opts;
  if (cutAfterEvents !== undefined && (!Number.isInteger(cutAfterEvents) || cutAfterEvents < 0)) {
    throw new UsageError(`stream(): cutAfterEvents must be a non-negative integer, got ${String(cutAfterEvents)}`);
  }
  return freezeStep({
    ...base,
    label: `stream(${base.label})`,
    template: applyOptions(base.template, response),
    delivery: 'stream',
    streamOptions: {
      ...base.streamOptions,
      ...(chunkSize === undefined ? {} : { chunkSize }),
      ...(interruptWith === undefined ? {} : { interruptWith }),
      ...(cutAfterEvents === undefined ? {} : { cutAfterEvents }),
    },
    delayMs: delayMs ?? base.delayMs,
  });
}

/** An HTTP error in the API's shape `{ type: 'error', error: { type, message } }`. */
export function httpError(status: number, opts: HttpErrorOptions = {}): HttpStep {
  if (!Number.isInteger(status) || status < 400 || status > 599) {
    throw new UsageError(`httpError(): ${status} is not an HTTP error status (400-599)`);
  }
  const type = opts.type ?? errorTypeFor(status);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const retryAfterMs = opts.retryAfterMs === undefined ? 1 : opts.retryAfterMs;
  if (retryAfterMs !== null) headers['retry-after-ms'] = String(retryAfterMs);
  if (opts.shouldRetry !== undefined) headers['x-should-retry'] = String(opts.shouldRetry);
  return freezeStep({
    kind: 'http',
    label: `httpError(${status} ${type})`,
    status,
    headers: { ...headers, ...opts.headers },
    body: { type: 'error', error: { type, message: opts.message ?? `Scripted ${status} ${type}` } },
    delayMs: opts.delayMs ?? 0,
  });
}

/**
 * Any HTTP response: a string body is sent as is, anything else as JSON. With a 200 status this
 * is also how a test sends what a misbehaving proxy would: an HTML page, `{}`, truncated JSON,
 * garbage as `text/event-stream`, or (with `cutAfterBytes`) a body cut off mid-way.
 */
export function rawResponse(status: number, body: unknown, opts: RawResponseOptions = {}): HttpStep {
  const cut = opts.cutAfterBytes;
  if (cut !== undefined && (!Number.isInteger(cut) || cut < 0)) {
    throw new UsageError(`rawResponse(): cutAfterBytes must be a non-negative integer, got ${String(cut)}`);
  }
  return freezeStep({
    kind: 'http',
    label: `rawResponse(${status}${cut === undefined ? '' : `, cut after ${cut} bytes`})`,
    status,
    headers: { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json', ...opts.headers },
    body,
    ...(cut === undefined ? {} : { cutAfterBytes: cut }),
    delayMs: opts.delayMs ?? 0,
  });
}

/**
 * `fetch` rejects as undici does when the connection fails. The SDK retries it (with its own
 * 0.5s+ backoff: there is no response to carry a retry-after header) and finally throws
 * `APIConnectionError`.
 */
export function networkError(opts: ConnectionFailureOptions = {}): ConnectionFailureStep {
  return freezeStep({
    kind: 'networkError',
    label: 'networkError',
    message: opts.message ?? 'connect ECONNREFUSED scripted-model.invalid:80',
    delayMs: opts.delayMs ?? 0,
  });
}

/**
 * `fetch` rejects with a connect-timeout error at once, without waiting out the client's
 * timeout. The SDK retries it and finally throws `APIConnectionTimeoutError`. (To exercise the
 * SDK's own timer instead, give any step a `delayMs` above the client's `timeout`.)
 */
export function timeout(opts: ConnectionFailureOptions = {}): ConnectionFailureStep {
  return freezeStep({
    kind: 'timeout',
    label: 'timeout',
    message: opts.message ?? 'Connect Timeout Error (attempted address: scripted-model.invalid:80)',
    delayMs: opts.delayMs ?? 0,
  });
}

function messageStep(label: string, content: ContentBlockInput[], opts: ResponseOptions): MessageStep {
  return freezeStep({
    kind: 'message',
    label,
    template: applyOptions({ content }, opts),
    delivery: 'auto',
    streamOptions: {},
    delayMs: opts.delayMs ?? 0,
  });
}

function applyOptions(template: MessageTemplate, opts: ResponseOptions): MessageTemplate {
  return {
    ...template,
    ...(opts.usage === undefined ? {} : { usage: { ...template.usage, ...opts.usage } }),
    ...(opts.stopReason === undefined ? {} : { stop_reason: opts.stopReason }),
    ...(opts.stopSequence === undefined ? {} : { stop_sequence: opts.stopSequence }),
    ...(opts.model === undefined ? {} : { model: opts.model }),
    ...(opts.messageId === undefined ? {} : { id: opts.messageId }),
  };
}

function isMessageStep(value: MessageStep | readonly ContentBlockInput[]): value is MessageStep {
  return !Array.isArray(value);
}

function errorTypeFor(status: number): ErrorType {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 408:
    case 504:
      return 'timeout_error';
    case 409:
      return 'conflict_error';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

function preview(value: string): string {
  return JSON.stringify(value.length > 30 ? `${value.slice(0, 29)}…` : value);
}

// Steps are values a test may reuse across scripts; freezing keeps one run from editing another's.
function freezeStep<T extends object>(step: T): T {
  return Object.freeze(step);
}
