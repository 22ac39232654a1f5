/**
 * W16: a run streamed to a web page (issue 43). Two gates, on the journal store:
 * - a durable research run (200 steps, each one agent call whose answer streams in pieces of 8
 *   characters, `streamText` on) with one reader streaming it from the store as it runs, against
 *   the same run with no reader. The reader is what a page costs the run: polling the store and
 *   making chunks, in the same process. Target: ≤ 1.10×.
 * - the same run, not durable, with one live reader (the run's events encoded as they happen, into
 *   a bounded queue the reader drains) against none. Target: ≤ 1.10×.
 * - reconnecting: a page that lost its connection asks for the stream after a chunk id (picked at
 *   random over the whole finished run); the time to its first chunk (the `Response` read up to
 *   its first bytes). Target: p99 ≤ 50 ms on this machine.
 * Rounds of the first gate alternate the two variants (reader first in every other round), each
 * on a fresh store folder; the run's own time is measured (run() resolving), not the reader's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, type Workflow } from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { json, ScriptedModel, stream } from 'groundswell/testing';
import { runChunks, uiMessageStreamResponse, type RunChunk } from 'groundswell/web';
import { elapsedNs, fmtMs, fmtX, int, median, now, recordRatio, section, table } from './harness.js';

const STEPS = 200;
const ANSWER = 'The tide rises twice a day as the moon pulls the sea. '.repeat(8);
const ROUNDS = 9;
const RECONNECTS = 200;
/** A run with one reader ≤ 1.10× the run with none. */
const TARGET_READER = 1.1;
/** Reconnect to first chunk, p99. */
const TARGET_RECONNECT_MS = 50;

const Answer = z.object({ answer: z.string() });

function research(store: JournalRunStore, runId: string): Workflow<number> {
  const model = new ScriptedModel(() => stream(json({ answer: ANSWER }), { chunkSize: 8 }));
  const agent = createAgent({ name: 'writer', client: model.client(), enableCache: false });
  return createWorkflow({ name: 'research', streamText: true, durable: { store, runId } }, async (ctx) => {
    for (let i = 0; i < STEPS; i += 1) await ctx.step('write', () => agent.prompt(createPrompt({ user: `part ${i}`, responseFormat: Answer })));
    return STEPS;
  });
}

/** Reads the run's stream to its end; how many chunks it got. */
async function readAll(store: JournalRunStore, runId: string): Promise<number> {
  let count = 0;
  for await (const chunk of runChunks({ store, runId }, { textField: 'answer' })) if (chunk.id !== '') count += 1;
  return count;
}

/** The same run, not durable: with or without a live reader (an observer into a bounded queue) read as it goes. */
async function liveRun(withReader: boolean): Promise<number> {
  const model = new ScriptedModel(() => stream(json({ answer: ANSWER }), { chunkSize: 8 }));
  const agent = createAgent({ name: 'writer', client: model.client(), enableCache: false });
  const workflow = createWorkflow({ name: 'research', streamText: true }, async (ctx) => {
    for (let i = 0; i < STEPS; i += 1) await ctx.step('write', () => agent.prompt(createPrompt({ user: `part ${i}`, responseFormat: Answer })));
    return STEPS;
  });
  const reading = withReader
    ? (async () => {
        for await (const chunk of runChunks(workflow, { textField: 'answer' })) void chunk;
      })()
    : Promise.resolve();
  const start = now();
  await workflow.run();
  const ns = elapsedNs(start);
  await reading;
  return ns;
}

/** One run on a fresh store folder, with or without a reader; the run's time in ns. */
async function oneRun(withReader: boolean): Promise<{ ns: number; chunks: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'gs-w16-'));
  const store = new JournalRunStore({ dir });
  try {
    const reading = withReader ? readAll(store, 'r') : Promise.resolve(0);
    const start = now();
    await research(store, 'r').run();
    const ns = elapsedNs(start);
    return { ns, chunks: await reading };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

export async function runW16(): Promise<void> {
  section(`W16  a run streamed to a web page: ${STEPS} streamed agent calls on the journal store, with one store reader vs none; reconnect to first chunk`);
  await oneRun(true);
  await oneRun(false);
  const alone: number[] = [];
  const read: number[] = [];
  let chunks = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? [false, true] : [true, false];
    for (const withReader of order) {
      const result = await oneRun(withReader);
      (withReader ? read : alone).push(result.ns);
      if (withReader) chunks = result.chunks;
    }
  }
  const ratio = median(read) / median(alone);
  const liveAlone: number[] = [];
  const liveRead: number[] = [];
  await liveRun(true);
  await liveRun(false);
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? [false, true] : [true, false];
    for (const withReader of order) (withReader ? liveRead : liveAlone).push(await liveRun(withReader));
  }
  const liveRatio = median(liveRead) / median(liveAlone);

  // Reconnects over one finished run, at random chunk ids.
  const dir = mkdtempSync(join(tmpdir(), 'gs-w16-'));
  const store = new JournalRunStore({ dir });
  const waits: number[] = [];
  try {
    await research(store, 'done').run();
    const ids: RunChunk[] = [];
    for await (const chunk of runChunks({ store, runId: 'done' })) ids.push(chunk);
    let seed = 16;
    for (let i = 0; i < RECONNECTS; i += 1) {
      seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0;
      const after = ids[seed % (ids.length - 1)] as RunChunk;
      const start = now();
      const response = uiMessageStreamResponse({ store, runId: 'done' }, { request: new Request('http://bench.test/stream', { headers: { 'last-event-id': after.id } }) });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const first = await reader.read();
      waits.push(elapsedNs(start));
      if (first.done === true) throw new Error('W16: a reconnect got no chunk');
      await reader.cancel();
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const p99 = percentile(waits, 99);
  console.log(
    table(
      ['what', 'median', 'p99', 'ratio', 'target', 'status'],
      [
        ['run, no reader', fmtMs(median(alone)), '-', '-', '-', '-'],
        [`run, one reader streaming it from the store (${int(chunks)} chunks)`, fmtMs(median(read)), '-', fmtX(ratio), `≤ ${fmtX(TARGET_READER)}`, recordRatio('W16', 'durable run with one streaming reader vs none', ratio, TARGET_READER)],
        ['live run (not durable), no reader', fmtMs(median(liveAlone)), '-', '-', '-', '-'],
        ['live run, one reader of its events as they happen', fmtMs(median(liveRead)), '-', fmtX(liveRatio), `≤ ${fmtX(TARGET_READER)}`, recordRatio('W16', 'live run with one streaming reader vs none', liveRatio, TARGET_READER)],
        [
          `reconnect after a random chunk id, to first chunk (${int(RECONNECTS)} reconnects)`,
          fmtMs(median(waits)),
          fmtMs(p99),
          '-',
          `p99 ≤ ${TARGET_RECONNECT_MS} ms`,
          recordRatio('W16', `reconnect to first chunk p99 / ${TARGET_RECONNECT_MS} ms (journal store)`, p99 / 1e6 / TARGET_RECONNECT_MS, 1),
        ],
      ],
      ['left', 'right', 'right', 'right', 'right', 'left'],
    ),
  );
}
