import { describe, expect, it } from 'vitest';
import { createWorkflow, type Workflow } from 'groundswell';
import { PostgresRunStore, type PgClientLike, type PgPoolLike, type PgResultLike } from 'groundswell/postgres';
import { probePostgres, useTestSchemas } from '../../support/postgres-service.js';

// Needs a PostgreSQL server (see tests/support/postgres-service.ts); skipped with the reason without one.
const probe = await probePostgres();
const { pool, schema: freshSchema } = useTestSchemas(probe, 4);

/** `pool`, recording the text of every statement sent through it or a client it lent: one round trip each. */
function counting(inner: PgPoolLike, sent: string[]): PgPoolLike {
  const query = (statement: Parameters<PgPoolLike['query']>[0], values?: unknown[]): Promise<PgResultLike> => {
    sent.push(typeof statement === 'string' ? statement : statement.text);
    return values === undefined ? inner.query(statement) : inner.query(statement, values);
  };
  return {
    query,
    async connect(): Promise<PgClientLike> {
      const client = await inner.connect();
      return {
        query: (text, values) => {
          sent.push(text);
          return values === undefined ? client.query(text) : client.query(text, values);
        },
        release: (error) => client.release(error),
      };
    },
    end: () => inner.end(),
  };
}

describe.skipIf(!probe.ok)('a durable run on PostgreSQL: round trips per settled step', () => {
  for (const fsync of ['checkpoints', 'every-record', 'off'] as const) {
    it(`one statement per settled step, its events included (fsync ${fsync})`, async () => {
      const schema = freshSchema('gs_trips');
      const sent: string[] = [];
      const store = new PostgresRunStore({ pool: counting(pool, sent), schema, fsync });
      await store.migrate();
      const steps = 12;
      const during: string[] = [];
      const build = (): Workflow<number> =>
        // A lease far longer than the test: no renewal lands among the steps.
        createWorkflow({ name: 'Trips', durable: { store, runId: 'trips', leaseMs: 3_600_000 } }, async (ctx) => {
          // The first settle also stores the tree (a run killed early still has one).
          let total = await ctx.step('warm', () => 0);
          const from = sent.length;
          for (let i = 0; i < steps; i += 1) total += await ctx.step(`s${i}`, () => i);
          during.push(...sent.slice(from));
          return total;
        });
      expect(await build().run()).toBe((steps * (steps - 1)) / 2);
      // The tree is rewritten on a timer that follows what a write costs, not per step: left out.
      const perStep = during.filter((text) => !/\.trees\b/.test(text));
      expect(perStep).toHaveLength(steps);
      for (const text of perStep) expect(text).toMatch(/INSERT INTO "[^"]+"\.steps/);
      // Every step and every event of the run was stored, numbered without a gap.
      const loaded = await store.loadRun('trips');
      expect(loaded.steps.map((s) => s.key)).toHaveLength(steps + 1);
      const events = await store.readEvents('trips');
      expect(events.map((e) => e.seq)).toEqual(events.map((_e, i) => i + 1));
      expect(events.filter((e) => (e.event as { type?: string }).type === 'stepEnd')).toHaveLength(steps + 1);
      await store.close();
    });
  }
});
