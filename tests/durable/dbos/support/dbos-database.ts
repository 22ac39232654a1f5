import pg from 'pg';
import { PG_CONNECTION } from '../../../support/postgres-service.js';

export interface DbosDatabase {
  /** The system database URL DBOS is configured with. */
  readonly url: string;
  drop(): Promise<void>;
}

function adminClient(): pg.Client {
  return new pg.Client(typeof PG_CONNECTION === 'string' ? { connectionString: PG_CONNECTION } : PG_CONNECTION);
}

/** A fresh PostgreSQL database for one test's DBOS system database, on the server the tests use. */
export async function createDbosDatabase(label: string, options: { synchronousCommit?: boolean } = {}): Promise<DbosDatabase> {
  const name = `gs_dbos_${label}_${process.pid}_${Date.now().toString(36)}`;
  const admin = adminClient();
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
    // A commit that returns before its WAL reaches the disk: a server crash may lose the last few, a process crash none.
    if (options.synchronousCommit === false) await admin.query(`alter database ${name} set synchronous_commit = off`);
  } finally {
    await admin.end();
  }
  let url: string;
  if (typeof PG_CONNECTION === 'string') {
    const parsed = new URL(PG_CONNECTION);
    parsed.pathname = `/${name}`;
    url = parsed.toString();
  } else {
    url = `postgresql://${encodeURIComponent(PG_CONNECTION.user)}@localhost/${name}?host=${encodeURIComponent(PG_CONNECTION.host)}`;
  }
  return {
    url,
    async drop() {
      const client = adminClient();
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
