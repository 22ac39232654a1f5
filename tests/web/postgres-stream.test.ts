import { describe, expect, it } from 'vitest';
import { PostgresRunStore } from 'groundswell/postgres';
import { runChunks, uiMessageStreamResponse, type RunChunk } from 'groundswell/web';
import { readRunStream } from 'groundswell/web/client';
import { probePostgres, useTestSchemas } from '../support/postgres-service.js';
import { researchRun, SECTION, SECTIONS } from './stream-run.js';
import { collect } from './stream-reading.js';

// Needs a PostgreSQL server (see tests/support/postgres-service.ts); skipped with the reason without one.
const probe = await probePostgres();
const { pool, schema: freshSchema } = useTestSchemas(probe, 4);

describe.skipIf(!probe.ok)('a run’s stream on PostgreSQL', () => {
  it('streams a live run from the store, and resumes after any chunk id over HTTP with nothing lost or repeated', async () => {
    const schema = freshSchema('gs_web');
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
