import type { PgResultLike } from './pg-like.js';
import type { ReadBack } from './pg-resend.js';

/** A statement read on a fresh connection (the store's reads, each sent again once on a lost connection). */
export type Read = (sql: string, values: unknown[]) => Promise<PgResultLike>;

/**
 * Whether the row of `key` (the run's own row for `runs`) holds exactly `text`: after a repeated
 * insert found its key taken, this tells a first send that did commit (or an identical record)
 * from a record someone else wrote. `json` columns keep the text as written, so text equality is
 * record equality.
 */
export async function holdsRecord(read: Read, schema: string, table: 'runs' | 'steps' | 'calls', runId: string, key: string, text: string): Promise<boolean> {
  const s = `"${schema}"`;
  const found =
    table === 'runs'
      ? await read(`SELECT record::text = $2 AS same FROM ${s}.runs WHERE id = $1`, [runId, text])
      : await read(`SELECT record::text = $3 AS same FROM ${s}.${table} WHERE run_id = $1 AND key = $2`, [runId, key, text]);
  return found.rows[0]?.same === true;
}

/**
 * What a settle (events and a step, one statement) whose connection was lost left. First waits for
 * any transaction that holds the run's row: a settle still running on the server after its client
 * lost it (a dropped network, not a killed backend) bumps the run's counter, so it holds that row
 * until it ends. Then, in a new snapshot:
 * - no row for the key: the settle did not commit (it writes the step and its batch together), so
 *   it may be sent again;
 * - the key holds this step's record and a batch written in the same transaction (same `xmin`)
 *   holds these events: it committed; the batch's numbers are the answer;
 * - anything else (the key was written before, so the settle would not have written it): unknown.
 */
export async function readBackSettle(read: Read, schema: string, runId: string, key: string, record: string, events: string): Promise<ReadBack> {
  const s = `"${schema}"`;
  await read(`SELECT 1 FROM ${s}.runs WHERE id = $1 FOR SHARE`, [runId]);
  const found = await read(
    `SELECT st.record::text = $3 AS same, b.first_seq - 1 AS base
       FROM ${s}.steps st LEFT JOIN ${s}.event_batches b ON b.run_id = st.run_id AND b.xmin = st.xmin AND b.events::text = $4
      WHERE st.run_id = $1 AND st.key = $2`,
    [runId, key, record, events],
  );
  const row = found.rows[0];
  if (row === undefined) return 'absent';
  if (row.same !== true || row.base === null || row.base === undefined) return 'unknown';
  return { committed: { rows: [{ base: row.base, written: true }], rowCount: 1 } };
}
