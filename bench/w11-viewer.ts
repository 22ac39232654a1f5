/**
 * W11: watching must not slow the run. The same run (a root, child workflows of 100 steps each)
 * with the viewer attached, first with no page open, then with one HTTP client reading the SSE
 * stream (what a browser tab costs the server: batches built and written every 100 ms). The ratio
 * with/without a reader is the target. With a reader the clock stops only once the batch showing
 * the run's root completed has reached it, the whole SSE message: until then the page does not
 * show the run's end. The
 * reader counts bytes and looks for that row only after the run returned, so the ratio is the
 * server's.
 */
import { request } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createWorkflow } from 'groundswell';
import { serveViewer, type Viewer } from 'groundswell/viewer';
import { fixed2, fmtBytes, fmtMs, int, measureInterleaved, recordRatio, section, table } from './harness.js';

const SIZES = [10_000, 20_000] as const;
const STEPS_PER_WORKFLOW = 100;
const TARGET_RATIO = 1.2;

/**
 * Child workflows of 100 steps under one root: `steps` steps, steps + steps/100 + 1 nodes. Each
 * step yields to the event loop once, as any step doing I/O does: a run of steps that never leave
 * the microtask queue would give the batch timer no turn at all.
 */
function buildRun(steps: number): ReturnType<typeof createWorkflow<void>> {
  return createWorkflow<void>('w11', async (ctx) => {
    for (let w = 0; w < steps / STEPS_PER_WORKFLOW; w += 1) {
      await ctx.spawnWorkflow(
        createWorkflow({ name: `batch ${w}` }, async (c) => {
          for (let s = 0; s < STEPS_PER_WORKFLOW; s += 1) await c.step(`item ${w}.${s}`, async () => nextTurn(s));
        }),
      );
    }
  });
}

interface Reader {
  bytes: number;
  /** Resolves once a batch with the row of `rootId` as completed has arrived, all of it. */
  lastBatch(rootId: string): Promise<void>;
  close(): void;
}

/** Longer than any node row's text up to its status: the tail of earlier chunks kept for the search. */
const ROW_PREFIX_MAX = 4_096;

const NEWLINE = 0x0a;

/** How long the run's last batch may take to arrive before the workload fails (the batch timer is 100 ms). */
const LAST_BATCH_TIMEOUT_MS = 10_000;

/** An SSE client that reads and counts, as a tab would consume the stream (without drawing). */
function openReader(viewer: Viewer): Promise<Reader> {
  return new Promise((resolve, reject) => {
    const req = request(new URL('/api/events', viewer.url), { agent: false }, (res) => {
      // Set while a run's end is awaited: only text from then on is searched, so reading stays byte counting.
      // `rowSeen`: the root's completed row has arrived, and the rest of its batch (up to the blank
      // line that ends an SSE message) is awaited: the page shows a batch once all of it is in.
      let waiting: { row: RegExp; text: string; rowSeen: boolean; endsInNewline: boolean; done: () => void } | undefined;
      const reader: Reader = {
        bytes: 0,
        lastBatch: (rootId) =>
          new Promise<void>((done, fail) => {
            const timer = setTimeout(() => fail(new Error(`W11: the run's last batch did not reach the reader in ${LAST_BATCH_TIMEOUT_MS} ms`)), LAST_BATCH_TIMEOUT_MS);
            // A row on the stream is [id, parentId, name, kind, status, ...].
            const row = new RegExp(`\\["${rootId.replace(/[^\w-]/g, (c) => `\\${c}`)}",(?:null|"[^"]*"),"(?:[^"\\\\]|\\\\.)*","\\w+","completed"`);
            waiting = {
              row,
              text: '',
              rowSeen: false,
              endsInNewline: false,
              done: () => {
                clearTimeout(timer);
                waiting = undefined;
                done();
              },
            };
          }),
        close: () => req.destroy(),
      };
      res.on('data', (chunk: Buffer) => {
        reader.bytes += chunk.length;
        if (waiting === undefined) return;
        // Only the new text and a short tail of the old are searched: a row up to its status is
        // far shorter than the tail, and searching all that arrived on every chunk made the
        // reader's own work grow with the square of the batch (a browser does that in its own process).
        // The message's JSON has no raw newline: the first blank line after the row ends its
        // batch. Once the row is in, only bytes are looked at (no text is decoded).
        if (waiting.rowSeen) {
          if (chunk.includes('\n\n') || (waiting.endsInNewline && chunk[0] === NEWLINE)) waiting.done();
          else waiting.endsInNewline = chunk[chunk.length - 1] === NEWLINE;
          return;
        }
        const text = waiting.text + chunk.toString('utf8');
        const found = waiting.row.exec(text);
        if (found === null) {
          waiting.text = text.slice(-ROW_PREFIX_MAX);
          return;
        }
        waiting.rowSeen = true;
        const rest = text.slice(found.index + found[0].length);
        if (rest.includes('\n\n')) waiting.done();
        else waiting.endsInNewline = rest.endsWith('\n');
      });
      res.on('error', () => undefined);
      resolve(reader);
    });
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end();
  });
}

/** One run with the viewer attached; with `reader`, until the batch with the run's end has reached it. */
async function runWith(viewer: Viewer, steps: number, reader?: Reader): Promise<void> {
  const run = buildRun(steps);
  const detach = viewer.attach(run);
  try {
    await run.run();
    // The viewer sends the root's completion with its next batch, up to 100 ms after the run returned.
    if (reader !== undefined) await reader.lastBatch(run.node.id);
  } finally {
    detach();
  }
}

export async function runW11(): Promise<void> {
  section('W11  a run with the viewer attached: no page open vs one SSE reader (batches every 100 ms)');
  const quiet = await serveViewer();
  const watched = await serveViewer();
  const reader = await openReader(watched);
  const rows: string[][] = [];
  try {
    for (const steps of SIZES) {
      const before = reader.bytes;
      const [alone, read] = await measureInterleaved([() => runWith(quiet, steps), () => runWith(watched, steps, reader)], { warmup: 2, runs: 11 });
      if (alone === undefined || read === undefined) throw new Error('W11: a measurement is missing');
      const ratio = read.medianNs / alone.medianNs;
      const nodes = steps + steps / STEPS_PER_WORKFLOW + 1;
      rows.push([
        int(nodes),
        fmtMs(alone.medianNs),
        fmtMs(read.medianNs),
        `${fixed2(ratio)}x`,
        fmtBytes((reader.bytes - before) / 13),
        recordRatio('W11', `page open, ${int(nodes)} nodes`, ratio, TARGET_RATIO),
      ]);
    }
  } finally {
    reader.close();
    await quiet.close();
    await watched.close();
  }
  console.log(
    table(['nodes', 'no page', 'page open', 'slowdown', 'streamed per run', `≤ ${TARGET_RATIO}x`], rows, ['right', 'right', 'right', 'right', 'right', 'left']),
  );
  console.log(
    '  (median of 11 rounds after 2 warm-ups, both interleaved; "page open" stops its clock once the whole batch showing the root completed\n' +
      '   reached the reader, so it includes the wait for the viewer\'s next batch after the run returned: up to 100 ms)',
  );
}
