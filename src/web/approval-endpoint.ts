import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RunStore } from '../durable/store/run-store.js';
import { RunNotFoundError } from '../durable/store/run-store-errors.js';
import { RunFinishedError, SignalNameError, SignalValueError } from '../durable/runtime/replay-errors.js';
import { resume, type ResumeOptions } from '../durable/runtime/resume.js';
import { signal } from '../durable/runtime/signal.js';
import { UsageError } from '../errors/groundswell-error.js';

export interface ApprovalEndpointOptions {
  readonly store: RunStore;
  /**
   * The run's workflow factories: once the answer is stored, a suspended run resumes in this
   * process (not awaited: the answer returns at once, and the run's stream carries on). Without
   * them the answer is only stored; resume the run yourself.
   */
  readonly workflows?: ResumeOptions['workflows'];
  /** What resuming came to: the run's result, or its error (a suspension at its next wait is one). */
  readonly onResumed?: (runId: string, outcome: { readonly result?: unknown; readonly error?: unknown }) => void;
}

/** What the page sends: the `approvalId` of a `tool-approval-request` chunk, and the person's answer. */
interface ApprovalBody {
  readonly runId: string;
  readonly approvalId: string;
  readonly approved: boolean;
  readonly reason?: string;
}

const MAX_BODY = 64 * 1024;

/**
 * Answers a tool call's approval request from a fetch-style route handler: `POST` with JSON
 * `{ runId, approvalId, approved, reason? }`. Stores the answer as the run's signal (a wrong id or
 * a finished run is refused and nothing is stored) and resumes the run when `workflows` are given.
 * 202 when stored; 400 for a malformed body, 404 for an unknown run, 409 when the run does not
 * wait for that approval, 422 when the answer does not fit.
 */
export async function answerApproval(request: Request, options: ApprovalEndpointOptions): Promise<Response> {
  if (request.method !== 'POST') return json(405, { error: 'Answer an approval with POST.' }, { allow: 'POST' });
  const text = await request.text();
  return json(...(await answered(text, options)));
}

/** `answerApproval` for a Node `http` server. */
export async function handleApproval(req: IncomingMessage, res: ServerResponse, options: ApprovalEndpointOptions): Promise<void> {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Answer an approval with POST.' }));
    return;
  }
  const text = await bodyOf(req);
  const [status, body] = text === undefined ? ([413, { error: `The body is over ${MAX_BODY} bytes.` }] as const) : await answered(text, options);
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

async function answered(text: string, options: ApprovalEndpointOptions): Promise<[number, object]> {
  if (text.length > MAX_BODY) return [413, { error: `The body is over ${MAX_BODY} bytes.` }];
  const body = parseBody(text);
  if (typeof body === 'string') return [400, { error: body }];
  const { store, workflows } = options;
  try {
    const before = await store.getRun(body.runId);
    await signal(body.runId, body.approvalId, body.reason === undefined ? { approved: body.approved } : { approved: body.approved, reason: body.reason }, { store });
    if (workflows !== undefined && before?.status === 'suspended') {
      resume(body.runId, { store, workflows }).then(
        (result) => options.onResumed?.(body.runId, { result }),
        (error: unknown) => options.onResumed?.(body.runId, { error }),
      );
    }
    return [202, { stored: true, runId: body.runId, approvalId: body.approvalId }];
  } catch (error) {
    if (error instanceof RunNotFoundError) return [404, { error: error.message }];
    if (error instanceof SignalNameError || error instanceof RunFinishedError) return [409, { error: error.message }];
    if (error instanceof SignalValueError) return [422, { error: error.message }];
    if (error instanceof UsageError) return [400, { error: error.message }];
    throw error;
  }
}

/** The body's fields, or what is wrong with it. */
function parseBody(text: string): ApprovalBody | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'The body is not JSON: send { runId, approvalId, approved, reason? }.';
  }
  if (typeof value !== 'object' || value === null) return 'The body must be an object { runId, approvalId, approved, reason? }.';
  const { runId, approvalId, approved, reason } = value as Record<string, unknown>;
  if (typeof runId !== 'string' || runId === '') return 'runId must be the run\'s id.';
  if (typeof approvalId !== 'string' || approvalId === '') return 'approvalId must be the approval request\'s id.';
  if (typeof approved !== 'boolean') return 'approved must be true or false.';
  if (reason !== undefined && typeof reason !== 'string') return 'reason must be text when given.';
  return reason === undefined ? { runId, approvalId, approved } : { runId, approvalId, approved, reason };
}

/** The request's body as text; undefined past MAX_BODY (the rest is left unread, and the answer closes). */
async function bodyOf(req: IncomingMessage): Promise<string | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > MAX_BODY) return undefined;
    parts.push(part);
  }
  return Buffer.concat(parts).toString('utf8');
}

function json(status: number, body: object, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers } });
}
