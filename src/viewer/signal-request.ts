import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { TOKEN_HEADER } from './signal-names.js';

/**
 * Why a signal POST is refused, or undefined when it may go on. Only the page this server served
 * may send one: it carries the per-server token, comes from the viewer's own origin (a cross-site
 * form or fetch carries another Origin, or none it can choose), is addressed to the bound port, and
 * is JSON (a cross-site form cannot send that type without a preflight the server never answers).
 */
export function signalRequestRefusal(req: IncomingMessage, token: string, port: number): string | undefined {
  const host = (req.headers.host ?? '').trim().toLowerCase();
  if (!host.endsWith(`:${port}`)) return 'the request is not addressed to this viewer\u2019s host and port';
  const origin = req.headers.origin;
  if (origin !== undefined && origin.toLowerCase() !== `http://${host}`) return `the request comes from another origin (${origin})`;
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return `the request comes from another site (${site})`;
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') return 'a signal is sent as application/json';
  const sent = req.headers[TOKEN_HEADER];
  if (typeof sent !== 'string' || !sameText(sent, token)) return `the request lacks this viewer\u2019s token (the ${TOKEN_HEADER} header the page sends)`;
  return undefined;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
