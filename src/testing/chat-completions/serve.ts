import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { GroundswellError, UsageError } from '../../errors/groundswell-error.js';
import { isRecord } from '../../util/is-record.js';
import type { RecordedRequest, RequestParts } from '../recorded-request.js';
import { answerScripted, requestId, type ScriptedAnswer, type ScriptedModel } from '../scripted-model.js';
import type { HttpStep } from '../script-step.js';
import { chatStreamPayloads } from './chat-chunks.js';
import { chatError, chatHttpBody } from './chat-errors.js';
import { toChatCompletion } from './to-chat-completion.js';
import { toMessagesRequest } from './to-messages-request.js';

/** A running loopback Chat Completions server; see `serveChatCompletions`. */
export interface ChatCompletionsServer {
  /** `http://127.0.0.1:<port>/v1`: the `baseURL` to give an OpenAI-compatible client. */
  readonly baseURL: string;
  /** Stops listening and drops open (keep-alive) connections. Safe to call twice. */
  close(): Promise<void>;
}

export interface ChatCompletionsServerOptions {
  /** Default 0: a free port the system picks. */
  port?: number;
  /** The id `GET /v1/models` lists. Default `scripted-model`. */
  modelId?: string;
}

const HOST = '127.0.0.1';

/**
 * Serves a scripted model over HTTP as an OpenAI-compatible Chat Completions endpoint on
 * 127.0.0.1, so code that talks to a local server (Ollama, llama.cpp, vLLM), or any
 * OpenAI-compatible provider package, runs offline against the same scripts as the Anthropic path.
 *
 * Each `POST /v1/chat/completions` is translated into the Messages API request shape and answered
 * by the model's script: `model.requests[i].body` is that translation (so `route`, `toolResults`,
 * `requestData` and `callingAgent` work unchanged), and `chatCompletions` holds the body as sent.
 * The scripted Message goes back as a `chat.completion`, or as `chat.completion.chunk` events
 * when the request streams; `httpError` steps become the same status with an OpenAI-style error
 * body, and `networkError`/`timeout` steps drop the connection. `GET /v1/models` lists one model
 * and takes no script step.
 */
export async function serveChatCompletions(
  model: ScriptedModel,
  options: ChatCompletionsServerOptions = {},
): Promise<ChatCompletionsServer> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`serveChatCompletions(): port must be an integer from 0 to 65535, got ${String(port)}`);
  }
  const modelId = options.modelId ?? 'scripted-model';
  const server = createServer((req, res) => {
    void handle(req, res, model, modelId);
  });
  const bound = await listen(server, port);
  let closing: Promise<void> | undefined;
  return {
    baseURL: `http://${HOST}:${bound}/v1`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Clients keep connections alive between requests; without this close() would wait on them.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error) => {
      reject(new GroundswellError(`serveChatCompletions(): cannot listen on ${HOST}:${port}: ${error.message}`, { cause: error }));
    });
    server.listen(port, HOST, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

async function handle(req: IncomingMessage, res: ServerResponse, model: ScriptedModel, modelId: string): Promise<void> {
  // A client that hangs up cancels a step's delay, as an aborted fetch does on the Messages path.
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort(new Error('the client closed the connection'));
  });
  const path = new URL(req.url ?? '/', `http://${HOST}`).pathname.replace(/\/+$/, '');
  try {
    if (req.method === 'POST' && path === '/v1/chat/completions') {
      await complete(req, res, model, controller.signal);
    } else if (req.method === 'GET' && path === '/v1/models') {
      sendJson(res, 200, { object: 'list', data: [{ id: modelId, object: 'model', created: 0, owned_by: 'groundswell' }] });
    } else {
      const message = `The scripted Chat Completions server has no ${req.method ?? 'GET'} ${path}`;
      sendJson(res, 404, chatError(message, 'invalid_request_error', 404));
    }
  } catch (error) {
    if (controller.signal.aborted) return;
    // A fault of the stand-in itself: say so to the client rather than leave it waiting.
    const reason = error instanceof Error ? error.message : String(error);
    if (!res.headersSent) sendJson(res, 500, chatError(`Scripted server error: ${reason}`, 'server_error', 500));
    else res.destroy();
  }
}

async function complete(req: IncomingMessage, res: ServerResponse, model: ScriptedModel, signal: AbortSignal): Promise<void> {
  const rawBody = await readBody(req);
  const chat = parseObject(rawBody);
  const parts: RequestParts = {
    method: 'POST',
    url: `http://${HOST}:${req.socket.localPort ?? 0}${req.url ?? ''}`,
    headers: headersOf(req),
    rawBody,
    body: toMessagesRequest(chat),
    chatCompletions: chat,
  };
  const answer = await answerScripted(model, parts, signal);
  if (signal.aborted) return;
  switch (answer.kind) {
    case 'message':
      if (answer.request.stream) await sendStream(res, answer, chat);
      else sendJson(res, 200, toChatCompletion(answer.message, now()), answer.request);
      return;
    case 'http':
      await sendHttp(res, answer.step, answer.request);
      return;
    case 'connectionFailure':
      // The HTTP form of a refused or timed-out connection: the client's fetch fails.
      req.socket.destroy();
      return;
    case 'failure':
      sendJson(res, 400, chatError(answer.failure, 'invalid_request_error', 400), answer.request, {
        'x-should-retry': 'false',
      });
      return;
  }
}

async function sendStream(
  res: ServerResponse,
  answer: ScriptedAnswer & { kind: 'message' },
  chat: Readonly<Record<string, unknown>>,
): Promise<void> {
  const options = answer.step.streamOptions;
  const includeUsage = isRecord(chat.stream_options) && chat.stream_options.include_usage === true;
  const payloads = chatStreamPayloads(answer.message, { created: now(), includeUsage, stream: options });
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-request-id': requestId(answer.request),
  });
  for (const [i, payload] of payloads.entries()) {
    if (options.cutAfterEvents !== undefined && i >= options.cutAfterEvents) {
      // A dropped connection: what was sent arrived, then the body fails mid-stream.
      res.destroy();
      return;
    }
    if (!(await write(res, `data: ${payload}\n\n`))) return;
  }
  res.end();
}

async function sendHttp(res: ServerResponse, step: HttpStep, request: RecordedRequest): Promise<void> {
  const body = Buffer.from(chatHttpBody(step), 'utf8');
  const headers = { ...step.headers, 'x-request-id': requestId(request) };
  if (step.cutAfterBytes === undefined) {
    res.writeHead(step.status, { ...headers, 'content-length': String(body.length) });
    res.end(body);
    return;
  }
  // Sent without a length, so the client reads the head and then sees the connection drop.
  res.writeHead(step.status, headers);
  if (step.cutAfterBytes > 0) await write(res, body.subarray(0, step.cutAfterBytes));
  res.destroy();
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  request?: RecordedRequest,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...(request === undefined ? {} : { 'x-request-id': requestId(request) }),
    ...headers,
  });
  res.end(text);
}

// Resolves once the chunk is handed to the socket, false if the client has gone.
function write(res: ServerResponse, chunk: string | Buffer): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    res.write(chunk, (error) => resolve(error == null && !res.destroyed));
  });
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return chunks.length === 0 ? undefined : Buffer.concat(chunks).toString('utf8');
}

function parseObject(raw: string | undefined): Readonly<Record<string, unknown>> {
  if (raw === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}
