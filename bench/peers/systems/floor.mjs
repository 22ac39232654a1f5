// Floors: what the same loop costs with no framework. Variants: a plain loop of STEPS awaited
// async steps (nothing kept); one INSERT of the step's result per step into a one-table schema
// (its own autocommit transaction) with synchronous_commit on, and with it off (asynchronous
// commit: acknowledged before the WAL is flushed). One pg.Client, the same driver the others use.
import pg from 'pg';
import { DATABASE_URL, STEPS, VARIANT, newRunId, serve, stepResult } from './common.mjs';

let client;
if (VARIANT === 'insert-sync' || VARIANT === 'insert-async') {
  client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  await client.query('CREATE TABLE IF NOT EXISTS steps (run_id text NOT NULL, step integer NOT NULL, result json NOT NULL, PRIMARY KEY (run_id, step))');
  await client.query(`SET synchronous_commit = ${VARIANT === 'insert-sync' ? 'on' : 'off'}`);
} else if (VARIANT !== 'loop') {
  throw new Error(`unknown variant ${VARIANT}`);
}

const step = async (i) => stepResult(i);

async function runOnce() {
  const runId = newRunId();
  let last;
  for (let i = 0; i < STEPS; i += 1) {
    last = await step(i);
    if (client) await client.query({ name: 'insert-step', text: 'INSERT INTO steps (run_id, step, result) VALUES ($1, $2, $3)', values: [runId, i, JSON.stringify(last)] });
  }
  return last;
}

await serve({ runOnce, close: async () => client?.end() });
