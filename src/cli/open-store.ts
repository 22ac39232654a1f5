import { resolve } from 'node:path';
import type { RunStore } from '../durable/store/run-store.js';
import { JournalRunStore } from '../durable/journal/journal-store.js';
import { UsageError } from '../errors/groundswell-error.js';
import { CliUsageError } from './cli-io.js';

export interface StoreFlags {
  readonly store?: string;
  readonly pg?: string;
  readonly schema?: string;
}

/**
 * `--store <dir>` opens that journal, `--pg <url>` that PostgreSQL store. With neither, the
 * environment decides: PostgreSQL at GROUNDSWELL_PG_URL when it is set (and not empty), else the
 * journal in .groundswell/runs. A flag always wins over the environment.
 */
export async function openStore(flags: StoreFlags): Promise<RunStore> {
  if (flags.store !== undefined && flags.pg !== undefined) throw new CliUsageError('Give one store: --store <dir> or --pg <url>, not both.');
  if (flags.pg === '') throw new CliUsageError('--pg needs a PostgreSQL connection URL.');
  if (flags.store === '') throw new CliUsageError('--store needs a folder.');
  const fromEnv = process.env.GROUNDSWELL_PG_URL;
  const pg = flags.pg ?? (flags.store === undefined && fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined);
  if (pg === undefined && flags.schema !== undefined) throw new CliUsageError('--schema applies to a PostgreSQL store (--pg <url>) only.');
  try {
    if (pg !== undefined) {
      const { PostgresRunStore } = await import('../durable/postgres/postgres-store.js');
      return new PostgresRunStore({ connection: pg, ...(flags.schema !== undefined ? { schema: flags.schema } : {}) });
    }
    return new JournalRunStore({ dir: resolve(flags.store ?? '.groundswell/runs') });
  } catch (error) {
    // A value the store refuses (a bad --schema) is a mistake in the call, not a failure.
    if (error instanceof UsageError) throw new CliUsageError(error.message, { cause: error });
    throw error;
  }
}
