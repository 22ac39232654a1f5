import { describe, expect, it } from 'vitest';
import { MemoryRunStore } from 'groundswell/durable';
import { runChunks, type RunChunk, type UIChunk } from 'groundswell/web';
import { randomRun } from '../support/random-run.js';
import { seeded } from '../support/seeded.js';
import { collect, lastMessage } from './stream-reading.js';

/**
 * Durable runs of random shape (steps, agent calls in and out of steps, child workflows, fan-outs
 * whose calls stream at once, caught failures) streamed from their store: the AI SDK's reader
 * accepts every stream and finds each answer's text whole; ids only increase; a reader that comes
 * back after any chunk gets exactly the chunks after it; and a reader of the live run got the same.
 */

function order(id: string): [number, number] {
  const [seq, index] = id.split('.');
  return [Number(seq), index === undefined ? 0 : Number(index) + 1];
}

/** The chunks as a stream for the AI SDK's reader, copied: it updates a data part's object in place. */
function streamOf(chunks: readonly RunChunk[]): ReadableStream<UIChunk> {
  return new ReadableStream({
    start(controller) {
      for (const { chunk } of chunks) controller.enqueue(structuredClone(chunk) as UIChunk);
      controller.close();
    },
  });
}

/** The chunks without their ids, each run of text pieces of one part joined into one piece. */
function joinedText(chunks: readonly RunChunk[]): UIChunk[] {
  const out: UIChunk[] = [];
  for (const { chunk } of chunks) {
    const last = out.at(-1);
    if (chunk.type === 'text-delta' && last?.type === 'text-delta' && last.id === chunk.id) out[out.length - 1] = { ...last, delta: last.delta + chunk.delta };
    else out.push(chunk as UIChunk);
  }
  return out;
}

async function life(seed: number): Promise<void> {
  const store = new MemoryRunStore();
  const runId = `random-${seed}`;
  const { run, handedOut } = randomRun(seed, { durable: { store, runId }, streamed: true });
  const live = collect(runChunks(run, { text: 'all', messageId: runId }));
  await run.run();
  const context = `seed ${seed}, ${handedOut.answers} calls`;

  const all = await collect(runChunks({ store, runId }, { text: 'all' }));
  // A reader of the live run got the same chunks as a reader of the store (their ids aside, and a
  // live reader that fell behind gets a part's waiting text pieces joined into one).
  expect(joinedText(await live), `${context}: live`).toEqual(joinedText(all));
  for (let i = 1; i < all.length; i += 1) {
    const [seq, index] = order((all[i] as RunChunk).id);
    const [lastSeq, lastIndex] = order((all[i - 1] as RunChunk).id);
    expect(seq > lastSeq || (seq === lastSeq && index > lastIndex), `${context}: id ${(all[i] as RunChunk).id} after ${(all[i - 1] as RunChunk).id}`).toBe(true);
  }
  expect(all.at(-1)?.chunk.type, context).toBe('finish');

  // Each call's text part holds its whole answer, the pieces of concurrent calls kept apart.
  const message = await lastMessage(streamOf(all));
  const texts = message?.parts.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text);
  expect(texts, context).toEqual(Array.from({ length: handedOut.answers }, () => JSON.stringify({ ok: true })));

  const next = seeded(seed * 7919);
  for (let cut = 0; cut < 4 && all.length > 1; cut += 1) {
    const at = Math.floor(next() * (all.length - 1));
    const after = (all[at] as RunChunk).id;
    expect(await collect(runChunks({ store, runId }, { text: 'all', after })), `${context}: after ${after}`).toEqual(all.slice(at + 1));
  }
}

// 60 runs take a couple of seconds here; 600 passed once.
describe('streams of random durable runs', () => {
  it('are accepted by the AI SDK with every answer whole, resume after any chunk with exactly the rest, and match the live stream', { timeout: 120_000 }, async () => {
    for (let seed = 1; seed <= 60; seed += 1) await life(seed);
  });
});
