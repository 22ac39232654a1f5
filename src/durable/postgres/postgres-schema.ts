import { UsageError } from '../../errors/groundswell-error.js';

/** A schema name used unquoted-safe: lower-case letters, digits and `_`, at most 63. */
const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

export function requireSchemaName(schema: unknown): string {
  if (typeof schema !== 'string' || !SCHEMA.test(schema)) {
    throw new UsageError(`PostgresRunStore schema must be 1-63 lower-case letters, digits or "_" (not a digit first), got ${JSON.stringify(schema)}.`);
  }
  return schema;
}

/** First key of the two-key advisory lock that serialises migrations (the second is the schema). */
export const MIGRATE_LOCK_KEY = 0x67_73_72_73; // 'gsrs'

/** One object `migrate()` creates: its kind and name (for messages; a column's is `table.column`) and the DDL that creates it. */
export interface SchemaObject {
  kind: 'schema' | 'table' | 'index' | 'column';
  name: string;
  sql: string;
}

/**
 * What `migrate()` creates, in order; each object is created only when the catalog lacks it, so a
 * role that may use the tables but not create them can run it. Values are `json` (the text as
 * written), not `jsonb`: `jsonb` reorders keys and cannot hold "\u0000", which would change a
 * stored value. Times are epoch milliseconds (double precision: a clock may give fractions).
 */
export function schemaObjects(schema: string): SchemaObject[] {
  const s = `"${schema}"`;
  const table = (name: string, body: string): SchemaObject => ({ kind: 'table', name, sql: `CREATE TABLE IF NOT EXISTS ${s}.${name} (${body}\n)` });
  const ofRun = `run_id text NOT NULL REFERENCES ${s}.runs (id) ON DELETE CASCADE`;
  // The tables every settled step or call writes carry no foreign key: each of their writes reads
  // the run's row in the same statement (the lease's fence or the event counter), so a write to an
  // unknown run writes nothing, and the key's check was a third of what a settle cost beyond one
  // INSERT (decision 0088).
  const ofRunHot = 'run_id text NOT NULL';
  return [
    { kind: 'schema', name: schema, sql: `CREATE SCHEMA IF NOT EXISTS ${s}` },
    table(
      'runs',
      `
  id text PRIMARY KEY,
  root_name text NOT NULL,
  status text NOT NULL,
  created_at double precision NOT NULL,
  record json NOT NULL,
  event_seq bigint NOT NULL DEFAULT 0,
  lease_owner text,
  lease_token text,
  lease_expires_at double precision`,
    ),
    { kind: 'index', name: 'runs_created_at', sql: `CREATE INDEX IF NOT EXISTS runs_created_at ON ${s}.runs (created_at DESC, id DESC)` },
    // The lease holder's process (host, pid, boot id, ...) and the token it was recorded for: a
    // resumer on the same machine takes over at once from a holder whose process is gone
    // (decision 0090). Added to schemas of earlier versions by `migrate()`.
    { kind: 'column', name: 'runs.lease_process', sql: `ALTER TABLE ${s}.runs ADD COLUMN IF NOT EXISTS lease_process json` },
    table(
      'steps',
      `
  ${ofRunHot},
  key text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  record json NOT NULL,
  PRIMARY KEY (run_id, key)`,
    ),
    table(
      'calls',
      `
  ${ofRunHot},
  key text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  record json NOT NULL,
  PRIMARY KEY (run_id, key)`,
    ),
    table(
      'signals',
      `
  ${ofRun},
  n bigint GENERATED ALWAYS AS IDENTITY,
  record json NOT NULL,
  PRIMARY KEY (run_id, n)`,
    ),
    table(
      'data',
      `
  ${ofRun},
  name text NOT NULL,
  entry json NOT NULL,
  PRIMARY KEY (run_id, name)`,
    ),
    table(
      'trees',
      `
  run_id text PRIMARY KEY REFERENCES ${s}.runs (id) ON DELETE CASCADE,
  tree json NOT NULL`,
    ),
    // One event per row, as versions before decision 0058 wrote them: read, no longer written.
    table(
      'events',
      `
  ${ofRun},
  seq bigint NOT NULL,
  event json NOT NULL,
  PRIMARY KEY (run_id, seq)`,
    ),
    // The events of one write in one row (a JSON array, numbered first_seq..last_seq): a settled
    // step costs one row and one index entry however many events it has.
    table(
      'event_batches',
      `
  ${ofRunHot},
  last_seq bigint NOT NULL,
  first_seq bigint NOT NULL,
  events json NOT NULL,
  PRIMARY KEY (run_id, last_seq)`,
    ),
  ];
}

/** The foreign keys schemas made before decision 0088 have on the hot tables; `migrate()` drops them. */
export const DROPPED_FOREIGN_KEYS: ReadonlyArray<{ table: string; constraint: string }> = [
  { table: 'steps', constraint: 'steps_run_id_fkey' },
  { table: 'calls', constraint: 'calls_run_id_fkey' },
  { table: 'event_batches', constraint: 'event_batches_run_id_fkey' },
];
