import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildMessage } from '../../../../src/testing/message-body.js';

export interface ModelServer {
  readonly url: string;
  /** Requests received, in total and per `x-worker` header, and those not answered yet per worker. */
  readonly requests: { total: number; byWorker: Map<string, number>; inFlight: Map<string, number> };
  close(): Promise<void>;
}

/**
 * A scripted model on 127.0.0.1 speaking the Anthropic messages API, shared by every process of
 * a test: it answers `{ "n": <number in the user text> }` after `delayMs`, and counts requests.
 * `onRequest` runs as each request arrives (a test kills a worker from there).
 */
export async function startModelServer(delayMs: number, onRequest: (worker: string, count: number) => void = () => undefined): Promise<ModelServer> {
  const requests = { total: 0, byWorker: new Map<string, number>(), inFlight: new Map<string, number>() };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.total += 1;
      const worker = String(req.headers['x-worker'] ?? 'unknown');
      const count = (requests.byWorker.get(worker) ?? 0) + 1;
      requests.byWorker.set(worker, count);
      requests.inFlight.set(worker, (requests.inFlight.get(worker) ?? 0) + 1);
      onRequest(worker, count);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model?: string };
      const n = Number(/child (\d+)/.exec(JSON.stringify(body))?.[1] ?? '7');
      const message = buildMessage({ content: [{ type: 'text', text: JSON.stringify({ n }) }] }, { requestNumber: requests.total, requestModel: body.model });
      setTimeout(() => {
        requests.inFlight.set(worker, (requests.inFlight.get(worker) ?? 1) - 1);
        if (res.destroyed) return;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(message));
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
