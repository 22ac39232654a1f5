import { RunStoreError } from '../store/run-store-errors.js';
import type { PgPoolLike } from './pg-like.js';
import { isMissingModule } from '../../util/missing-module.js';

interface PgModule {
  Pool: new (config?: Record<string, unknown>) => PgPoolLike;
}

/**
 * Loads `pg` when a store first connects, so `groundswell/postgres` loads (and type-checks)
 * without it; `pg` is an optional peer dependency.
 */
export async function loadPg(): Promise<PgModule> {
  let loaded: unknown;
  try {
    loaded = await import('pg');
  } catch (error) {
    if (isMissingModule(error)) {
      throw new RunStoreError('PostgresRunStore needs the `pg` package, which is not installed: run `npm install pg`.', { cause: error });
    }
    throw error;
  }
  // ESM import of a CommonJS module: the module is `default`; a CommonJS require gives it directly.
  const module = ((loaded as { default?: unknown }).default ?? loaded) as Partial<PgModule>;
  if (typeof module.Pool !== 'function') throw new RunStoreError('The installed `pg` package has no Pool class; install pg 8.');
  return module as PgModule;
}
