import type { ServerResponse } from 'node:http';

/** Bytes a client may leave unread before it is dropped. */
const MAX_BUFFERED = 16 * 1024 * 1024;

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
