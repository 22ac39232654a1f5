import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import pg from 'pg';
import { afterAll } from 'vitest';

/** How the tests reach PostgreSQL: GROUNDSWELL_PG_URL, else the local socket and database of .ci/run. */
export const PG_CONNECTION: string | { host: string; database: string; user: string } =
  process.env.GROUNDSWELL_PG_URL ?? { host: '/var/run/postgresql', database: 'groundswell_test', user: process.env.PGUSER ?? userInfo().username };

export interface ServiceProbe {
  readonly ok: boolean;
  readonly reason: string;
}

/**
 * Whether a PostgreSQL server answers. Where none does, the tests that need it skip and say why;
 * with GROUNDSWELL_REQUIRE_SERVICES=1 (set by .ci/run) a missing server fails the run instead.
 */
export async function probePostgres(): Promise<ServiceProbe> {
  const client = new pg.Client(typeof PG_CONNECTION === 'string' ? { connectionString: PG_CONNECTION } : PG_CONNECTION);
  try {
    await client.connect();
    await client.query('select 1');
    return { ok: true, reason: '' };
  } catch (error) {
    const reason = `PostgreSQL is not reachable (${error instanceof Error ? error.message : String(error)}); set GROUNDSWELL_PG_URL or start it (see .ci/run)`;
    if (process.env.GROUNDSWELL_REQUIRE_SERVICES === '1') throw new Error(`${reason}, and GROUNDSWELL_REQUIRE_SERVICES=1 requires it.`, { cause: error });
    console.warn(`skipping PostgreSQL tests: ${reason}`);
    return { ok: false, reason };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** `PG_CONNECTION` as `pg` takes it. */
export const PG_CONFIG: pg.PoolConfig = typeof PG_CONNECTION === 'string' ? { connectionString: PG_CONNECTION } : PG_CONNECTION;

/** A test file's pool on the test database, and the schemas it made: dropped, then the pool ended, after the file's tests. */
export interface TestSchemas {
  readonly pool: pg.Pool;
  /** A fresh schema name starting with `prefix`, dropped after the file's tests. */
  schema(prefix: string): string;
}

/** Called at a test file's top level (it registers an `afterAll`). */
export function useTestSchemas(probe: ServiceProbe, max: number): TestSchemas {
  const pool = new pg.Pool({ ...PG_CONFIG, max });
  const made: string[] = [];
  afterAll(async () => {
    if (probe.ok) for (const schema of made) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });
  return {
    pool,
    schema(prefix) {
      const schema = `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
      made.push(schema);
      return schema;
    },
  };
}
