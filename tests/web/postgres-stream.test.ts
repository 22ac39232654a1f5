import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresRunStore } from 'groundswell/postgres';
import { runChunks, uiMessageStreamResponse, type RunChunk } from 'groundswell/web';
import { readRunStream } from 'groundswell/web/client';
import { PG_CONNECTION, probePostgres } from '../support/postgres-service.js';
import { researchRun, SECTION, SECTIONS } from './stream-run.js';

// Needs a PostgreSQL server (see tests/support/postgres-service.ts); skipped with the reason without one.
const probe = await probePostgres();
const connection: pg.PoolConfig = typeof PG_CONNECTION === 'string' ? { connectionString: PG_CONNECTION } : PG_CONNECTION;
const pool = new pg.Pool({ ...connection, max: 4 });
const schemas: string[] = [];

afterAll(async () => {
  if (probe.ok) for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe.skipIf(!probe.ok)('a run’s stream on PostgreSQL', () => {
  it('streams a live run from the store, and resumes after any chunk id over HTTP with nothing lost or repeated', async () => {
    const schema = `gs_web_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    schemas.push(schema);
    const store = new PostgresRunStore({ pool, schema });
    await store.migrate();
    // Read while it runs: the reader starts before the run exists.
    const live = collect(runChunks({ store, runId: 'pg-1' }, { textField: 'answer', pollMs: 5 }));
    await researchRun(store, 'pg-1', 5).run();
    const seen = await live;
    const all = await collect(runChunks({ store, runId: 'pg-1' }, { textField: 'answer' }));
    expect(seen).toEqual(all);
    const text = all.flatMap((c) => (c.chunk.type === 'text-delta' ? [c.chunk.delta] : [])).join('');
    expect(text).toBe(SECTION.repeat(SECTIONS));

    // Every second chunk id as a reconnect point, through the Response and the browser reader.
    for (let i = 0; i < all.length; i += 2) {
      const after = (all[i] as RunChunk).id;
      const fetchStored: typeof fetch = async (_url, init) => uiMessageStreamResponse({ store, runId: 'pg-1' }, { textField: 'answer', request: new Request('http://app.test/', init) });
      const ids: string[] = [];
      await collect(readRunStream('http://app.test/', { after, fetch: fetchStored, onChunkId: (id) => ids.push(id) }));
      expect(ids).toEqual(all.slice(i + 1).map((c) => c.id));
    }
    await store.close();
  }, 60_000);
});
