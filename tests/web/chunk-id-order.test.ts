import { describe, expect, it } from 'vitest';
import { readRunStream } from 'groundswell/web/client';

/** A whole stream of `count` chunks, every byte there at once (the reader never waits on the network). */
function answered(count: number): typeof fetch {
  const body = Array.from({ length: count }, (_, i) => `id: ${i + 1}\ndata: ${JSON.stringify({ type: 'text-delta', id: 't', delta: String(i + 1) })}\n\n`).join('') + 'data: [DONE]\n\n';
  return async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

/** Lets everything already queued run: a read-ahead, if there is one, happens meanwhile. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

describe('readRunStream’s onChunkId', () => {
  it('reports only the ids of chunks the reader took: the last id kept is where a reload reads on, so a chunk read ahead would be lost', async () => {
    const ids: string[] = [];
    const reader = readRunStream('http://app.test/stream', { fetch: answered(3), onChunkId: (id) => ids.push(id) }).getReader();
    await settle();
    expect(ids).toEqual([]);
    expect((await reader.read()).value).toEqual({ type: 'text-delta', id: 't', delta: '1' });
    await settle();
    expect(ids).toEqual(['1']);
    expect((await reader.read()).value).toEqual({ type: 'text-delta', id: 't', delta: '2' });
    await settle();
    expect(ids).toEqual(['1', '2']);
    await reader.cancel();
  });
});
