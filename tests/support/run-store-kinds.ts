import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe } from 'vitest';
import { JournalRunStore, type RunStore } from 'groundswell/durable';
import { PostgresRunStore } from 'groundswell/postgres';
import { PG_CONNECTION, probePostgres } from './postgres-service.js';

/** A fresh, empty store of one kind, and how to throw it away. */
export interface OpenedStore {
  readonly store: RunStore;
  close(): Promise<void>;
}

export interface RunStoreKind {
  readonly name: string;
  /** False where the kind's server is missing (the tests skip and say why; CI requires it). */
  readonly available: boolean;
  open(): Promise<OpenedStore>;
}

const postgres = await probePostgres();

/** Both run stores, for tests that must hold on each: the embedded journal and PostgreSQL. */
export const RUN_STORE_KINDS: readonly RunStoreKind[] = [
  {
    name: 'journal store',
    available: true,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'gs-store-'));
      const store = new JournalRunStore({ dir, fsync: 'off' });
      return {
        store,
        async close() {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'PostgreSQL store',
    available: postgres.ok,
    async open() {
      const schema = `gs_kind_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
      const store = new PostgresRunStore({ connection: PG_CONNECTION, schema, fsync: 'off' });
      await store.migrate();
      return {
        store,
        async close() {
          await store.close();
          const client = new pg.Client(typeof PG_CONNECTION === 'string' ? { connectionString: PG_CONNECTION } : PG_CONNECTION);
          await client.connect();
          try {
            await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          } finally {
            await client.end();
          }
        },
      };
    },
  },
];

/**
 * Runs `tests` once per store kind, each test with a fresh store handed to `use` before it starts
 * (thrown away after it); a kind whose server is missing skips.
 */
export function eachRunStore(use: (store: RunStore) => void, tests: () => void): void {
  describe.each(RUN_STORE_KINDS)('on the $name', (kind) => {
    let opened: OpenedStore | undefined;
    beforeEach(async (context) => {
      if (!kind.available) {
        context.skip();
        return;
      }
      opened = await kind.open();
      use(opened.store);
    });
    afterEach(async () => {
      await opened?.close();
      opened = undefined;
    });
    tests();
  });
}
