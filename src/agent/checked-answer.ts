import { errorMessage } from '../util/describe.js';
import type { Message } from '@anthropic-ai/sdk/resources/messages/messages';
import { MalformedResponseError } from './agent-errors.js';
import type { CallTree } from './call-tree.js';
import { messageProblem } from './message-shape.js';
import { loadAnthropicRuntime, loadedAnthropicRuntime } from './load-anthropic-runtime.js';

/** What `checkedAnswer` needs to know about one model request. */
export interface PendingAnswer {
  readonly agentName: string;
  readonly tree: CallTree;
  /** The SDK's parsed answer (a message, or whatever a misbehaving server sent). */
  readonly answer: Promise<unknown>;
  /** The HTTP response, once there was one with a success status. */
  readonly response: () => Promise<Response | null | undefined>;
  /** The 1-based HTTP attempt that produced the answer (0 when nobody counted). */
  readonly attempt: () => number;
}

/**
 * The one place a model answer is checked before the tool loop reads it. A success status whose
 * body the SDK could not parse (truncated JSON, a cut or garbled stream), or that is not a
 * message (an HTML page, `{}`), becomes a `MalformedResponseError` with an `apiError` event,
 * never a raw `SyntaxError`/`TypeError`. The SDK's own errors (HTTP status, connection,
 * abort, an error event in the stream) pass through as they are.
 */
export function checkedAnswer(pending: PendingAnswer, recover?: (error: unknown) => Promise<Message>): Promise<Message> {
  // `then`, not an async function: the usual answer passes with no frame or extra hop of its own.
  // `recover` (the adapter's retries) takes every failure here, as a `.catch` on the result
  // would, without the promise that `.catch` costs every answer that passes.
  return pending.answer.then(
    (value) => {
      const problem = messageProblem(value);
      if (problem === undefined) return value as Message;
      const failed = notAMessage(pending, problem);
      return recover === undefined ? failed : failed.catch(recover);
    },
    (error: unknown) => {
      const failed = unreadable(pending, error);
      return recover === undefined ? failed : failed.catch(recover);
    },
  );
}

/** The request failed: the SDK's errors pass on; a success status whose body could not be read is malformed. */
async function unreadable(pending: PendingAnswer, error: unknown): Promise<never> {
  // The SDK is loaded by now unless the client came from elsewhere; then this loads it once.
  const { APIError } = loadedAnthropicRuntime() ?? (await loadAnthropicRuntime());
  if (error instanceof APIError || pending.tree.signal?.aborted === true) throw error;
  const response = await pending.response().catch(() => undefined);
  // No successful response means the request itself failed: not an answer to check.
  if (response?.ok !== true) throw error;
  throw malformed(pending, response, `its body could not be read (${errorMessage(error)})`, error);
}

/** A success status whose body is not a message (an HTML page, `{}`). */
async function notAMessage(pending: PendingAnswer, problem: string): Promise<never> {
  const response = await pending.response().catch(() => undefined);
  throw malformed(pending, response ?? undefined, problem, undefined);
}

function malformed(pending: PendingAnswer, response: Response | undefined, problem: string, cause: unknown): MalformedResponseError {
  const status = response?.status ?? 200;
  const requestId = response?.headers.get('request-id') ?? undefined;
  const message = `The API answered ${status} but not with a Messages-API message: ${problem}.`;
  pending.tree.emit({ type: 'apiError', agentName: pending.agentName, attempt: Math.max(1, pending.attempt()), status, message });
  return new MalformedResponseError(`Agent "${pending.agentName}": ${message}`, pending.agentName, status, requestId, problem, {
    ...(cause !== undefined ? { cause } : {}),
  });
}
