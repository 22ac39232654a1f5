import { isRecord } from '../../util/is-record.js';
import type { HttpStep } from '../script-step.js';
import type { ChatErrorBody } from './chat-types.js';

/** An OpenAI-style error body; `code` is the HTTP status, as llama.cpp's and vLLM's servers send it. */
export function chatError(message: string, type: string, status: number): ChatErrorBody {
  return { error: { message, type, param: null, code: status } };
}

/**
 * The body an HTTP step sends on the Chat Completions path. An error in the Messages API's shape
 * (what `httpError` builds) is re-shaped as OpenAI-compatible clients expect, keeping its type and
 * message; any other body (a `rawResponse`: HTML, truncated JSON, `{}`) is sent exactly as
 * scripted, since its being malformed is the point.
 */
export function chatHttpBody(step: HttpStep): string {
  if (typeof step.body === 'string') return step.body;
  const body: unknown = step.body;
  if (step.status >= 400 && isRecord(body) && body.type === 'error' && isRecord(body.error)) {
    const { type, message } = body.error;
    if (typeof type === 'string' && typeof message === 'string') {
      return JSON.stringify(chatError(message, type, step.status));
    }
  }
  return JSON.stringify(body) ?? '';
}
