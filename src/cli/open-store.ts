import { resolve } from 'node:path';
import type { RunStore } from '../durable/run-store.js';
import { JournalRunStore } from '../durable/journal-store.js';

export interface StoreFlags {
  readonly store?: string;
  readonly pg?: string;
  readonly schema?: string;
}

/** `--pg <url>` (or GROUNDSWELL_PG_URL) opens the PostgreSQL store, else the journal in `--store` (default .groundswell/runs). */
export async function openStore(flags: StoreFlags): Promise<RunStore> {
  const pg = flags.pg ?? (flags.store === undefined ? process.env.GROUNDSWELL_PG_URL : undefined);
  if (pg !== undefined && pg !== '') {
    const { PostgresRunStore } = await import('../postgres/postgres-store.js');
    return new PostgresRunStore({ connection: pg, ...(flags.schema !== undefined ? { schema: flags.schema } : {}) });
  }
  return new JournalRunStore({ dir: resolve(flags.store ?? '.groundswell/runs') });
}
