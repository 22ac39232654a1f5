// What every system's program shares: the step's result, the run protocol with the parent
// (run.mjs) over the IPC channel, and the timing. A program is started once per system, variant
// and round, in a fresh process: it sets up, runs one whole workflow as warm-up, tells the parent
// it is ready (the parent reads the server's counters), runs the measured workflow when told,
// reports the wall time and exits.
import { randomUUID } from 'node:crypto';

export const STEPS = Number(process.env.PEERS_STEPS ?? 500);
export const VARIANT = process.env.PEERS_VARIANT ?? '';
export const DATABASE_URL = process.env.PEERS_DATABASE_URL ?? '';

const FILLER = 'the quick brown fox jumps over the lazy dog. '.repeat(6);

/** Step i's result: a small JSON object, 300 bytes once stringified (for i < 10,000). */
export function stepResult(i) {
  const value = { step: i, ok: true, at: 1_700_000_000_000 + i, note: '' };
  const base = JSON.stringify(value).length;
  value.note = FILLER.slice(0, 300 - base);
  return value;
}

/** Checks a workflow's last result so no system can skip the work. */
export function check(result) {
  const expected = JSON.stringify(stepResult(STEPS - 1));
  const got = JSON.stringify(result);
  if (got !== expected) throw new Error(`wrong final result: ${got?.slice(0, 120)}`);
}

export const newRunId = () => `peers-${randomUUID()}`;

function waitFor(kind) {
  return new Promise((resolve) => {
    const listener = (message) => {
      if (message?.kind === kind) {
        process.off('message', listener);
        resolve(message);
      }
    };
    process.on('message', listener);
  });
}

/**
 * Runs the protocol: `runOnce()` runs one whole workflow of STEPS steps and returns its last
 * step's result; `close()` ends what setup opened.
 */
export async function serve({ runOnce, close }) {
  try {
    if (process.env.PEERS_MODE === 'count') {
      // Counting: one workflow and exit, so every backend ends its session and PostgreSQL has
      // flushed its counters when the parent reads them (run.mjs differences two such runs).
      check(await runOnce());
      process.send({ kind: 'done', ms: 0 });
      await close?.();
      process.exit(0);
    }
    check(await runOnce()); // warm-up: the same work as measured, in the same process
    process.send({ kind: 'ready' });
    await waitFor('go');
    const start = performance.now();
    const result = await runOnce();
    const ms = performance.now() - start;
    check(result);
    process.send({ kind: 'done', ms });
    await waitFor('finish'); // the parent has read the counters; connections stay open until then
    await close?.();
    process.exit(0);
  } catch (error) {
    process.send({ kind: 'error', message: error instanceof Error ? `${error.stack ?? error.message}` : String(error) });
    process.exit(1);
  }
}
