import { RunStoreError } from '../store/run-store-errors.js';
import type { PgClientLike } from './pg-like.js';
import { DROPPED_FOREIGN_KEYS, MIGRATE_LOCK_KEY, schemaObjects, type SchemaObject } from './postgres-schema.js';

const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * Creates what the catalog lacks, inside the caller's transaction. Only missing objects get DDL:
 * PostgreSQL checks the CREATE privilege before `IF NOT EXISTS`, so a role that may use the
 * tables but not create them would fail even where everything exists.
 */
export async function migrateSchema(client: PgClientLike, schema: string): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATE_LOCK_KEY, schema]);
  await dropHotForeignKeys(client, schema);
  const missing = await missingObjects(client, schema);
  if (missing.length === 0) return;
  const role = String((await client.query('SELECT current_user AS role')).rows[0]?.role);
  for (const object of missing) {
    try {
      await client.query(object.sql);
    } catch (error) {
      if ((error as { code?: unknown }).code !== INSUFFICIENT_PRIVILEGE) throw error;
      const what = missing.map((o) => `${o.kind} ${o.name}`).join(', ');
      throw new RunStoreError(
        `PostgresRunStore.migrate() cannot create what schema "${schema}" lacks (${what}): role "${role}" may not (${(error as Error).message}). ` +
          `Run migrate() once as a role that owns the schema (or may create schemas in the database), or grant "${role}" CREATE on the schema; ` +
          'after that, roles that may only use the tables can run migrate(): it creates nothing that exists.',
        { cause: error },
      );
    }
  }
}

async function missingObjects(client: PgClientLike, schema: string): Promise<SchemaObject[]> {
  // The catalog is readable by every role, whatever its privileges on the schema.
  const found = await client.query(
    `SELECT 'schema' AS kind, nspname AS name FROM pg_namespace WHERE nspname = $1
     UNION ALL
     SELECT CASE WHEN c.relkind IN ('i', 'I') THEN 'index' ELSE 'table' END, c.relname
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1
     UNION ALL
     SELECT 'column', c.relname || '.' || a.attname
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped`,
    [schema],
  );
  const present = new Set(found.rows.map((row) => `${String(row.kind)} ${String(row.name)}`));
  return schemaObjects(schema).filter((object) => !present.has(`${object.kind} ${object.name}`));
}

/**
 * A schema made before decision 0088 keeps foreign keys on the tables each settled step writes;
 * they only slow those writes, so they go where the role may drop them (a role that may not keeps
 * a schema that works as before, a little slower). Only keys that exist get DDL.
 */
async function dropHotForeignKeys(client: PgClientLike, schema: string): Promise<void> {
  const found = await client.query(
    `SELECT c.conname AS name FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
      WHERE n.nspname = $1 AND c.contype = 'f' AND c.conname = ANY($2::text[])`,
    [schema, DROPPED_FOREIGN_KEYS.map((key) => key.constraint)],
  );
  const present = new Set(found.rows.map((row) => String(row.name)));
  for (const key of DROPPED_FOREIGN_KEYS) {
    if (!present.has(key.constraint)) continue;
    try {
      await client.query('SAVEPOINT drop_key');
      await client.query(`ALTER TABLE "${schema}".${key.table} DROP CONSTRAINT ${key.constraint}`);
      await client.query('RELEASE SAVEPOINT drop_key');
    } catch (error) {
      if ((error as { code?: unknown }).code !== INSUFFICIENT_PRIVILEGE) throw error;
      await client.query('ROLLBACK TO SAVEPOINT drop_key');
    }
  }
}
