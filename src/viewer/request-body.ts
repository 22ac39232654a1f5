import type { IncomingMessage } from 'node:http';

/** The most a viewer reads of a request's body: a signal's value is small. */
const MAX_BODY_BYTES = 64 * 1024;

/** A body longer than the bound: the rest is not read, so the answer closes the connection. */
export const TOO_LARGE = Symbol('too large');

/** Whether the request says it carries a body (a GET usually does not). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length.trim() !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Reads the body, up to `limit` bytes. Every request with a body is read before it is answered, so
 * a kept-alive connection is not reset by unread bytes; beyond `limit` reading stops.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer | typeof TOO_LARGE> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve(TOO_LARGE);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}
