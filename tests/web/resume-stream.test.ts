import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow } from 'groundswell';
import { MemoryRunStore } from 'groundswell/durable';
import { json, ScriptedModel, stream } from 'groundswell/testing';
import { runChunks, uiMessageStreamResponse, writeUIMessageStream, type RunChunk, type UIChunk } from 'groundswell/web';
import { readRunStream } from 'groundswell/web/client';
import { agentModel } from '../support/model-path.js';
import { collect, lastMessage } from './stream-reading.js';

const Answer = z.object({ answer: z.string() });
const ANSWER = 'Fifty words of tide tables, with "quotes", a\\backslash and ünïcödé ✓ in them.';

/** A durable run whose root asks one agent in a step that then waits at `gate` (when given). */
async function storedRun(store: MemoryRunStore, runId: string, gate?: Promise<void>) {
  const model = new ScriptedModel([stream(json({ answer: ANSWER }), { chunkSize: 3 })]);
  const agent = createAgent({ name: 'writer', ...(await agentModel(model)) });
  return createWorkflow({ name: 'answer', streamText: true, durable: { store, runId } }, async (ctx) => {
    // The gate is inside the step: nothing settles (and is stored with a settled step) before it opens.
    const answer = await ctx.step('ask', async () => {
      const value = await agent.prompt(createPrompt({ user: 'tides', responseFormat: Answer }));
      await gate;
      return value;
    });
    return answer.answer;
  });
}

/** A deterministic stream of numbers in [0, 1): the same cut points on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The body of `response`, failing as a dropped connection does after `cut` bytes. */
function cutAfter(response: Response, cut: number): Response {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await reader.read();
      if (next.done) return controller.close();
      const room = cut - sent;
      if (next.value.byteLength < room) {
        sent += next.value.byteLength;
        return controller.enqueue(next.value);
      }
      if (room > 0) controller.enqueue(next.value.subarray(0, room));
      await reader.cancel();
      controller.error(new TypeError('terminated'));
    },
  });
  return new Response(body, { headers: response.headers });
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
});

describe('resuming a durable run’s stream', () => {
  it('loses and repeats no chunk over 1,000 random disconnect points, cut at any byte', async () => {
    const store = new MemoryRunStore();
    await (await storedRun(store, 'r')).run();
    const all = await collect(runChunks({ store, runId: 'r' }, { textField: 'answer' }));
    const bytes = (await uiMessageStreamResponse({ store, runId: 'r' }, { textField: 'answer' }).arrayBuffer()).byteLength;
    const random = seeded(43);
    let reconnects = 0;
    for (let trial = 0; trial < 1_000; trial += 1) {
      // Each connection is cut at a random byte of what is left, until one reads to the end.
      const cuts = [1 + Math.floor(random() * bytes), 1 + Math.floor(random() * bytes)];
      const fetchCut: typeof fetch = async (_url, init) => {
        reconnects += 1;
        const request = new Request('http://app.test/stream', init);
        const response = uiMessageStreamResponse({ store, runId: 'r' }, { textField: 'answer', request });
        const cut = cuts.shift();
        return cut === undefined ? response : cutAfter(response, cut);
      };
      const ids: string[] = [];
      const chunks = await collect(readRunStream('http://app.test/stream', { fetch: fetchCut, retryMs: 0, onChunkId: (id) => ids.push(id) }));
      expect(ids).toEqual(all.map((c) => c.id));
      expect(chunks).toEqual(all.map((c) => c.chunk));
    }
    expect(reconnects).toBeGreaterThan(2_000);
    // A few seconds on a quiet machine; sized for a loaded 2-core one.
  }, 120_000);

  it('resumes a Response after the Last-Event-ID the request sends, and a Node http answer after ?after=', async () => {
    const store = new MemoryRunStore();
    await (await storedRun(store, 'r')).run();
    const all = await collect(runChunks({ store, runId: 'r' }));
    const middle = all[Math.floor(all.length / 2)] as RunChunk;
    const request = new Request('http://app.test/stream', { headers: { 'last-event-id': middle.id } });
    const response = uiMessageStreamResponse({ store, runId: 'r' }, { request });
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const text = await response.text();
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    const ids = [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1]);
    expect(ids).toEqual(all.slice(all.indexOf(middle) + 1).map((c) => c.id));

    server = createServer((req, res) => void writeUIMessageStream(res, { store, runId: 'r' }, { request: req }));
    await new Promise<void>((resolve) => (server as Server).listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stream`;
    const fromNode = await (await fetch(`${url}?after=${encodeURIComponent(middle.id)}`)).text();
    expect([...fromNode.matchAll(/^id: (.+)$/gm)].map((m) => m[1])).toEqual(ids);
    const message = await lastMessage(readRunStream(url));
    expect(message?.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text)).toEqual([JSON.stringify({ answer: ANSWER })]);
  });

  it('shows the answer while the run still runs: the run goes on only once a store reader has read its text', async () => {
    const store = new MemoryRunStore();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const run = (await storedRun(store, 'live', gate)).run();
    let text = '';
    let ended = false;
    for await (const { chunk } of runChunks({ store, runId: 'live' }, { textField: 'answer', pollMs: 5 })) {
      if (chunk.type === 'text-delta') text += chunk.delta;
      // The run is held at its gate: this text came from the store while it was running.
      if (chunk.type === 'text-end') open();
      if (chunk.type === 'finish') ended = true;
    }
    expect(text).toBe(ANSWER);
    expect(ended).toBe(true);
    await expect(run).resolves.toBe(ANSWER);
  });

  it('refuses a Last-Event-ID that is not a chunk id', async () => {
    const store = new MemoryRunStore();
    await (await storedRun(store, 'r')).run();
    await expect(collect(runChunks({ store, runId: 'r' }, { after: 'abc' }))).rejects.toThrow(/not a chunk id/);
  });
});
