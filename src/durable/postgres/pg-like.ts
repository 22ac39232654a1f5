/** What the store needs of a `pg` query result. */
export interface PgResultLike {
  rows: Record<string, unknown>[];
  rowCount: number | null;
}

/** A checked-out `pg` client (`pool.connect()`). */
export interface PgClientLike {
  query(text: string, values?: unknown[]): Promise<PgResultLike>;
  release(error?: Error | boolean): void;
}

/**
 * What the store needs of a `pg.Pool`. Structural, so the declarations of `groundswell/postgres`
 * do not need `@types/pg`; a `pg.Pool` fits.
 */
export interface PgPoolLike {
  /** The store's writes come as `{ name, text, values }` (a named prepared statement) unless `prepare` is false. */
  query(text: string | { name: string; text: string; values: unknown[] }, values?: unknown[]): Promise<PgResultLike>;
  connect(): Promise<PgClientLike>;
  end(): Promise<void>;
}

/** A `pg` pool config (`new pg.Pool(config)`, e.g. a `pg.PoolConfig`), or a connection string. */
export type PgConnectionConfig = string | object;
