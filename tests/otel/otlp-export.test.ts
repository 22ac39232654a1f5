import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otelObserver } from 'groundswell/otel';
import { releaseRun, reviewer, twoTurnModel } from './scripted-run.js';

/** What the receiver took from one OTLP/HTTP JSON request. */
interface Received {
  readonly path: string;
  readonly contentType: string | undefined;
  readonly spans: ReadonlyArray<{ name: string; traceId: string; spanId: string; parentSpanId?: string }>;
}

interface OtlpBody {
  resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Array<{ name: string; traceId: string; spanId: string; parentSpanId?: string }> }> }>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

// A real OTLP/HTTP receiver on loopback: the exporter's JSON body over a socket, as a collector gets it.
describe('groundswell/otel: one real OTLP/HTTP export', () => {
  const received: Received[] = [];
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      void readBody(request).then((body) => {
        const parsed = JSON.parse(body) as OtlpBody;
        const spans = (parsed.resourceSpans ?? []).flatMap((r) => (r.scopeSpans ?? []).flatMap((s) => s.spans ?? []));
        received.push({ path: request.url ?? '', contentType: request.headers['content-type'], spans });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('the receiver gets every span with its name, trace id and parent', async () => {
    const memory = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(memory), new SimpleSpanProcessor(new OTLPTraceExporter({ url }))],
    });
    const { workflow } = releaseRun(reviewer(twoTurnModel()));
    workflow.addObserver(await otelObserver({ tracerProvider: provider }));
    await workflow.run();
    await provider.forceFlush();
    // Read before shutdown, which empties the in-memory exporter.
    const sent = memory.getFinishedSpans();
    await provider.shutdown();

    const got = received.flatMap((request) => request.spans);
    expect(received.every((request) => request.path === '/v1/traces' && request.contentType === 'application/json')).toBe(true);
    expect(got.map((span) => span.name).sort()).toEqual(sent.map((span) => span.name).sort());
    expect(got.map((span) => span.name)).toEqual(expect.arrayContaining(['workflow release', 'invoke_agent reviewer', 'chat claude-test-1', 'execute_tool add']));
    // One trace, the same ids the SDK made, parents included.
    const traceId = sent[0]?.spanContext().traceId;
    expect(new Set(got.map((span) => span.traceId))).toEqual(new Set([traceId]));
    const byId = new Map(sent.map((span) => [span.spanContext().spanId, span]));
    for (const span of got) {
      const local = byId.get(span.spanId);
      expect(local?.name).toBe(span.name);
      expect(span.parentSpanId || undefined).toBe(local?.parentSpanContext?.spanId);
    }
  });
});
