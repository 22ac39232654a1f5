import type Anthropic from '@anthropic-ai/sdk';
import type { Middleware } from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { errorMessage } from '../../util/describe.js';
import { apiErrorBody } from '../api-error-body.js';
import { checkedAnswer } from '../checked-answer.js';
import type { ModelAdapter, ModelRequestContext } from './model-adapter.js';

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

/** One model request, its answer checked; streamed for `agent.stream()`. */
function send(client: Anthropic, params: MessageCreateParamsNonStreaming, context: ModelRequestContext): Promise<Message> {
  const { tree, agentName, onText } = context;
  const options: { middleware?: Middleware[]; signal?: AbortSignal } = {};
  let attempt = noAttempts;
  // Outside a workflow there is nobody to report attempts to, so the SDK keeps its fast path.
  if (tree.workflow !== undefined) {
    const attempts = { count: 0 };
    options.middleware = [attemptReporter(context, attempts)];
    attempt = () => attempts.count;
  }
  if (tree.signal) options.signal = tree.signal;
  if (onText === undefined) {
    const pending = client.messages.create(params, options);
    return checkedAnswer({ agentName, tree, attempt, answer: pending, response: () => pending.asResponse() });
  }
  const stream = client.messages.stream(params, options);
  stream.on('text', (text) => onText(text));
  return checkedAnswer({ agentName, tree, attempt, answer: stream.finalMessage(), response: () => Promise.resolve(stream.response) });
}

function noAttempts(): number {
  return 0;
}

/** Reports every failed HTTP attempt of a request, so the SDK's retries show in the tree. */
function attemptReporter(context: ModelRequestContext, attempts: { count: number }): Middleware {
  const { tree, agentName } = context;
  return async (request, next) => {
    attempts.count += 1;
    const attempt = attempts.count;
    try {
      const response = await next(request);
      if (response.status >= 400) {
        // The API's own message says what went wrong; the status text only repeats the status.
        const body = await apiErrorBody(response);
        const message = body.message ?? (response.statusText || `HTTP ${response.status}`);
        tree.emit({ type: 'apiError', agentName, attempt, status: response.status, message, ...(body.type !== undefined ? { errorType: body.type } : {}) });
      }
      return response;
    } catch (error) {
      // A cancelled workflow aborting its own request is not an API problem.
      if (tree.signal?.aborted !== true) {
        tree.emit({ type: 'apiError', agentName, attempt, status: null, message: errorMessage(error) });
      }
      throw error;
    }
  };
}
