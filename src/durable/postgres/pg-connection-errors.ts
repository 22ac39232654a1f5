/**
 * How a driver error that ended a connection relates to the statement it failed:
 * - `unsent`: the statement cannot have reached the server (no connection was made, or the
 *   client knew its connection was dead before sending), so sending it again is always safe;
 * - `maybe-sent`: the connection was lost after the statement may have been sent, so the server
 *   may have run and committed it.
 */
export type ConnectionLoss = 'unsent' | 'maybe-sent';

/** Socket errors that only connecting gives: no statement went out. */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOENT', 'ENOTFOUND', 'EAI_AGAIN']);
/** Socket errors of a connection that was up: what was written may have been read. */
const SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH']);
/**
 * SQLSTATEs the server refuses a new connection with: cannot_connect_now (starting up or shutting
 * down), too_many_connections, and the connection exceptions of establishing one.
 */
const REFUSED_STATES = new Set(['57P03', '53300', '08001', '08004']);
/**
 * SQLSTATEs of a server ending a connection in use: admin_shutdown (pg_terminate_backend, a fast
 * shutdown), crash_shutdown, idle_session_timeout, idle_in_transaction_session_timeout, and the
 * connection exception class.
 */
const ENDED_STATES = new Set(['57P01', '57P02', '57P05', '25P03', '08000', '08003', '08006', '08007']);
/** `pg`'s own messages for a client that never sent (its connection was already known dead, or never made). */
const UNSENT_MESSAGES = [/not queryable/i, /timeout exceeded when trying to connect/i, /Connection terminated due to connection timeout/i];
/** `pg`'s message when the socket closed under a client that was in use. */
const TERMINATED = /^Connection terminated/i;

/** The kind of connection loss `error` is, or undefined for any other error (SQL errors, input refused). */
export function connectionLoss(error: unknown): ConnectionLoss | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (CONNECT_CODES.has(code) || REFUSED_STATES.has(code)) return 'unsent';
    if (SOCKET_CODES.has(code) || ENDED_STATES.has(code)) return 'maybe-sent';
  }
  const message = (error as { message?: unknown }).message;
  if (typeof message !== 'string') return undefined;
  if (UNSENT_MESSAGES.some((pattern) => pattern.test(message))) return 'unsent';
  // Also when connecting: `pool.query` does not say which step failed, so assume the worse.
  if (TERMINATED.test(message)) return 'maybe-sent';
  return undefined;
}
