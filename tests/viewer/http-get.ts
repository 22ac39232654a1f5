import { request, type IncomingHttpHeaders } from 'node:http';
import type { NodeRow } from 'groundswell/viewer';
import { fromWire, type WireRow } from '../../src/viewer/wire-row.js';

export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A GET with headers of our choosing (fetch may not set Host). */
export function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** An open `/api/events` stream: its messages as they come, and a way to drop it like a closed tab. */
export interface EventStream {
  readonly messages: Array<{ event: string; data: unknown }>;
  /** Resolves with the first message (from now on, or already received) that `match` accepts. */
  next(match: (message: { event: string; data: unknown }) => boolean): Promise<{ event: string; data: unknown }>;
  readonly ended: Promise<void>;
  drop(): void;
}

export function openEvents(url: string): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const messages: Array<{ event: string; data: unknown }> = [];
    const waiters: Array<{ match: (m: { event: string; data: unknown }) => boolean; resolve: (m: { event: string; data: unknown }) => void }> = [];
    let endResolve!: () => void;
    const ended = new Promise<void>((r) => (endResolve = r));
    const req = request(new URL('/api/events', url), { agent: false }, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event === undefined || data === undefined) continue;
          const message = { event, data: JSON.parse(data) as unknown };
          messages.push(message);
          for (const waiter of [...waiters]) {
            if (waiter.match(message)) {
              waiters.splice(waiters.indexOf(waiter), 1);
              waiter.resolve(message);
            }
          }
        }
      });
      res.on('end', () => endResolve());
      res.on('close', () => endResolve());
      resolve({
        messages,
        ended,
        next: (match) => {
          const seen = messages.find(match);
          return seen !== undefined ? Promise.resolve(seen) : new Promise((r) => waiters.push({ match, resolve: r }));
        },
        drop: () => req.destroy(),
      });
    });
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end();
  });
}

/** The rows a stream message carries (a snapshot's `rows`, a batch's `upserted`), read from their compact form. */
export function rowsOf(message: { data: unknown }, field: 'rows' | 'upserted'): NodeRow[] {
  const data = message.data as Partial<Record<typeof field, WireRow[]>> & { timeBase: number };
  return (data[field] ?? []).map((row) => fromWire(row, data.timeBase));
}
