// groundswell: one root workflow of STEPS ctx.step calls, durable on the journal store (default
// fsync policy `checkpoints`, or `every-record`) or on PostgreSQL (PostgresRunStore's defaults:
// every write committed synchronously; `fsync: 'checkpoints'` as info).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorkflow } from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { PostgresRunStore } from 'groundswell/postgres';
import { DATABASE_URL, STEPS, VARIANT, newRunId, serve, stepResult } from './common.mjs';

let store;
let dir;
if (VARIANT === 'journal' || VARIANT === 'journal-every-record') {
  // The journal lives on the same file system as the database's data directory (/var/lib ... or
  // here: the temp folder of the machine); PEERS_JOURNAL_DIR picks another.
  dir = mkdtempSync(join(process.env.PEERS_JOURNAL_DIR ?? tmpdir(), 'gs-peers-'));
  store = new JournalRunStore(VARIANT === 'journal' ? { dir } : { dir, fsync: 'every-record' });
} else if (VARIANT === 'postgres' || VARIANT === 'postgres-checkpoints') {
  // Info beside the default: `checkpoints` commits steps asynchronously (runs, leases and
  // signals stay synchronous), like LangGraph's 'async' and the asynchronous INSERT floor.
  store = new PostgresRunStore(VARIANT === 'postgres' ? { connection: DATABASE_URL } : { connection: DATABASE_URL, fsync: 'checkpoints' });
  await store.migrate();
} else {
  throw new Error(`unknown variant ${VARIANT}`);
}

async function runOnce() {
  const workflow = createWorkflow({ name: 'PeerBench', durable: { store, runId: newRunId() } }, async (ctx) => {
    let last;
    for (let i = 0; i < STEPS; i += 1) last = await ctx.step('step', () => stepResult(i));
    return last;
  });
  return workflow.run();
}

await serve({
  runOnce,
  close: async () => {
    await store.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  },
});
