import type { ServerResponse } from 'node:http';

/** Bytes a client may leave unread before it is dropped. */
const MAX_BUFFERED = 16 * 1024 * 1024;

const NEWLINE = 0x0a;

/** What the stream carries: a message's bytes, or a comment as text. */
export type SseMessage = Buffer | string;

/**
 * The open `/api/events` streams. A write to a client that went away is dropped with the client:
 * a closed tab must never fail the server or the run it watches.
 */
export class SseClients {
  private readonly clients = new Set<ServerResponse>();
  private heartbeat: NodeJS.Timeout | undefined;

  get size(): number {
    return this.clients.size;
  }

  /** Opens the stream on `res` and sends `first` (the snapshot) before any batch. */
  add(res: ServerResponse, first: SseMessage): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Content-Type-Options': 'nosniff',
    });
    const drop = (): void => {
      this.clients.delete(res);
    };
    res.on('close', drop);
    res.on('error', drop);
    this.clients.add(res);
    this.write(res, first);
    // Comments keep proxies and idle timeouts from closing a quiet stream.
    this.heartbeat ??= setInterval(() => this.send(': keep-alive\n\n'), 15_000).unref();
  }

  /**
   * One SSE message: a named event with JSON data (one line: JSON escapes newlines), as bytes
   * made once for every open page. The JSON is written into them as it is: joined to its frame
   * as one string first, a batch of 1.5 MB was copied whole before each write, and encoded again
   * for each page.
   */
  static message(event: string, data: unknown): SseMessage {
    const json = JSON.stringify(data);
    const head = `event: ${event}\ndata: `;
    const size = Buffer.byteLength(json);
    const bytes = Buffer.allocUnsafe(head.length + size + 2);
    let at = bytes.write(head, 'latin1');
    // As many bytes as characters: all ASCII, copied as they are; else encoded.
    at += bytes.write(json, at, size, size === json.length ? 'latin1' : 'utf8');
    bytes.fill(NEWLINE, at);
    return bytes;
  }

  send(message: SseMessage): void {
    for (const res of this.clients) this.write(res, message);
  }

  closeAll(): void {
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    for (const res of this.clients) res.end();
    this.clients.clear();
  }

  private write(res: ServerResponse, text: SseMessage): void {
    if (res.destroyed || res.writableEnded) {
      this.clients.delete(res);
      return;
    }
    // A tab that stopped reading (suspended, stuck) must not make the server buffer a live run
    // without bound: drop it; its EventSource reconnects and starts again from a snapshot.
    if (res.writableLength > MAX_BUFFERED) {
      this.clients.delete(res);
      res.destroy();
      return;
    }
    try {
      res.write(text);
    } catch {
      this.clients.delete(res);
    }
  }
}
