import type { IncomingMessage, ServerResponse } from 'node:http';
import { exportRun } from '../debugger/run-export.js';
import { isAllowedHost } from './loopback-host.js';
import { nodeDetails } from './node-details.js';
import { hasBody, readBody, TOO_LARGE } from './request-body.js';
import { answerSignal, type SignalGate } from './signal-endpoint.js';
import { SIGNAL_PATH } from './signal-names.js';
import type { SseClients, SseMessage } from './sse-clients.js';
import type { ViewerModel } from './viewer-model.js';
import { viewerPage } from './viewer-page.js';
import { fromWire } from './wire-row.js';

/** What the request handler reads and asks of the running viewer. */
export interface ViewerState {
  readonly model: ViewerModel;
  readonly clients: SseClients;
  readonly boundHost: string;
  /** A fresh random value per server: the page's only allowed script and style (CSP). */
  readonly nonce: string;
  /** Set when the viewer was started with `allowSignals`: the page may answer a wait. */
  readonly signals: SignalGate | null;
  /** The snapshot message a new page gets first (after bringing the model up to date). */
  snapshotMessage(): SseMessage;
  /** Brings the model up to date when events arrived since the last batch (sending that batch). */
  flushIfDirty(): void;
}

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
} as const;

/**
 * Routes: GET / (the page), /api/run (the export), /api/tree (rows), /api/events (SSE),
 * /api/node/:id (one node's details), POST /api/signal (answer the wait; decision 0081). No CORS
 * headers: other origins cannot read any of it.
 */
export function handleViewerRequest(state: ViewerState, req: IncomingMessage, res: ServerResponse): void {
  res.on('error', () => undefined);
  if (!hasBody(req) || !isSignalPost(req)) {
    // Only a signal's body is used. Any other is discarded, however long, so the answer (a 405 to
    // a POST, say) goes out and the kept-alive connection stays usable for the next request.
    req.resume();
    route(state, req, res, Buffer.alloc(0));
    return;
  }
  // Read (bounded) before answering: unread bytes would reset a kept-alive connection.
  readBody(req).then(
    (body) => {
      if (body !== TOO_LARGE) {
        try {
          route(state, req, res, body);
        } catch {
          send(res, 400, 'text/plain; charset=utf-8', 'Bad request.\n');
        }
        return;
      }
      res.shouldKeepAlive = false;
      send(res, 413, 'text/plain; charset=utf-8', 'Payload too large.\n');
    },
    () => res.destroy(),
  );
}

function isSignalPost(req: IncomingMessage): boolean {
  return req.method === 'POST' && new URL(req.url ?? '/', 'http://viewer.invalid').pathname === SIGNAL_PATH;
}

function route(state: ViewerState, req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  if (!isAllowedHost(req.headers.host, state.boundHost)) {
    send(res, 403, 'text/plain; charset=utf-8', 'Forbidden: this viewer answers only requests addressed to its loopback host.\n');
    return;
  }
  const path = new URL(req.url ?? '/', 'http://viewer.invalid').pathname;
  if (path === SIGNAL_PATH && req.method === 'POST') {
    answerSignal(state.signals, req, body).then(
      (answer) => sendJson(res, answer.status, answer.body),
      (error: unknown) => sendJson(res, 500, { error: `Sending the signal failed: ${error instanceof Error ? error.message : String(error)}` }),
    );
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    send(res, 405, 'text/plain; charset=utf-8', 'Method not allowed.\n');
    return;
  }
  if (path === '/' || path === '/index.html') {
    const csp = `default-src 'none'; script-src 'nonce-${state.nonce}'; style-src 'nonce-${state.nonce}'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
    res.setHeader('Content-Security-Policy', csp);
    send(res, 200, 'text/html; charset=utf-8', viewerPage(state.nonce, state.signals?.token));
    return;
  }
  if (path === '/api/events') {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    state.clients.add(res, state.snapshotMessage());
    return;
  }
  if (path === '/api/tree') {
    state.flushIfDirty();
    // Rows with their field names: the compact form is for the page's stream only.
    const { rootId, rows, timeBase } = state.model.snapshot();
    sendJson(res, 200, { rootId, rows: rows.map((row) => fromWire(row, timeBase)) });
    return;
  }
  if (path === '/api/run') {
    const root = state.model.rootNode;
    if (root === null) sendJson(res, 404, { error: 'No run is shown yet.' });
    else sendJson(res, 200, exportRun(root));
    return;
  }
  if (path.startsWith('/api/node/')) {
    state.flushIfDirty();
    const id = decodeURIComponent(path.slice('/api/node/'.length));
    const node = state.model.node(id);
    if (node === undefined) sendJson(res, 404, { error: `No node "${id}" in the viewed tree.` });
    else sendJson(res, 200, nodeDetails(node));
    return;
  }
  send(res, 404, 'text/plain; charset=utf-8', 'Not found.\n');
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(res.req?.method === 'HEAD' ? undefined : body);
}
