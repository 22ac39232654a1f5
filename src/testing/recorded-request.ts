import type { MessageCreateParamsBase, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { isRecord } from '../util/is-record.js';

/**
 * The parsed JSON body. Typed as Messages API params for convenient assertions, but every field
 * is optional: other endpoints (count_tokens, models) send other shapes.
 */
export type RequestBody = Partial<MessageCreateParamsBase> & Readonly<Record<string, unknown>>;

/** One HTTP request the SDK sent to the scripted model, as it went over the (fake) wire. */
export interface RecordedRequest {
  /** 0-based position among all requests this model received, retries included. */
  readonly index: number;
  readonly method: string;
  readonly url: string;
  /** The URL path, e.g. `/v1/messages`. */
  readonly path: string;
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * `{}` when the body was absent or not JSON; see `rawBody`. For a request that came through
   * `serveChatCompletions`, the Chat Completions body translated into the Messages API shape.
   */
  readonly body: RequestBody;
  /** The body's text as it came over the wire. */
  readonly rawBody: string | undefined;
  readonly model: string | undefined;
  /** Whether the request asked for server-sent events (`stream: true`). */
  readonly stream: boolean;
  /** Text of the first user message (what the conversation is about). */
  readonly firstUserText: string | undefined;
  /** Text of the last user message (what the model is asked now); undefined for tool results only. */
  readonly lastUserText: string | undefined;
  /**
   * Set only for requests that came through `serveChatCompletions`: the Chat Completions body
   * as received (`{}` if it was not a JSON object). `body` then holds its translation into the
   * Messages API shape, which is what responders and the request helpers read.
   */
  readonly chatCompletions?: Readonly<Record<string, unknown>>;
}

/** A request as read off the wire, before the model numbers it. */
export interface RequestParts {
  readonly method: string;
  readonly url: string;
  /** Names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  readonly rawBody: string | undefined;
  /** What the script reads: the parsed body, or the translation of a Chat Completions body. */
  readonly body: RequestBody;
  readonly chatCompletions?: Readonly<Record<string, unknown>>;
}

type FetchInput = string | URL | Request;

/** Reads a fetch call synchronously, so requests are numbered in the order they were made. */
export function readFetch(input: FetchInput, init: RequestInit | undefined): RequestParts {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  const headers: Record<string, string> = {};
  new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).forEach((value, name) => {
    headers[name] = value;
  });
  const rawBody = bodyText(init?.body);
  return { method, url, headers, rawBody, body: parseBody(rawBody) };
}

/** The record of the `index`-th request (0-based), with the fields derived from its body. */
export function numberRequest(index: number, parts: RequestParts): RecordedRequest {
  const { body } = parts;
  const messages: readonly unknown[] = Array.isArray(body.messages) ? body.messages : [];
  const userTurns = messages.filter(isUserTurn);
  return Object.freeze({
    index,
    method: parts.method,
    url: parts.url,
    path: pathOf(parts.url),
    headers: Object.freeze({ ...parts.headers }),
    body,
    rawBody: parts.rawBody,
    model: typeof body.model === 'string' ? body.model : undefined,
    stream: body.stream === true,
    firstUserText: textOf(userTurns[0]),
    lastUserText: textOf(userTurns.at(-1)),
    ...(parts.chatCompletions === undefined ? {} : { chatCompletions: parts.chatCompletions }),
  });
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

// The SDK sends JSON bodies as strings; a stream or form body cannot be read without consuming it.
function bodyText(body: RequestInit['body']): string | undefined {
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return new TextDecoder().decode(body);
  return undefined;
}

function parseBody(raw: string | undefined): RequestBody {
  if (raw === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return isRequestBody(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function isRequestBody(value: unknown): value is RequestBody {
  return isRecord(value);
}

// The body is whatever the caller sent, so every level is checked rather than trusted.
function isUserTurn(value: unknown): value is Pick<MessageParam, 'role'> & { content: unknown } {
  return typeof value === 'object' && value !== null && 'role' in value && value.role === 'user';
}

function textOf(message: { content: unknown } | undefined): string | undefined {
  if (!message) return undefined;
  if (typeof message.content === 'string') return message.content;
  if (!Array.isArray(message.content)) return undefined;
  const parts: string[] = [];
  for (const block of message.content as readonly unknown[]) {
    if (typeof block === 'object' && block !== null && 'type' in block && block.type === 'text') {
      if ('text' in block && typeof block.text === 'string') parts.push(block.text);
    }
  }
  return parts.length > 0 ? parts.join('\n') : undefined;
}
