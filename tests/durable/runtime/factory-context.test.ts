import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkflow, isSuspension, signal, type DurableSetting } from 'groundswell';
import { JournalRunStore, type RunStore } from 'groundswell/durable';

let dir: string;
let store: JournalRunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-factory-'));
  store = new JournalRunStore({ dir, fsync: 'off' });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('durable set-up', () => {
  it('hands a resume factory the run id and store, so the input need not carry them', async () => {
    // The factory builds the workflow from what resume tells it, with no run id in the input.
    const build = (input: unknown, context?: { runId: string; store: RunStore }) =>
      createWorkflow({ name: 'Gate', durable: { store: context?.store ?? store, runId: context?.runId ?? 'f1', input } }, async (ctx) => {
        const go = await ctx.waitFor('go', z.boolean());
        return `${(input as { order: number }).order}: ${go}`;
      });
    expect(isSuspension(await build({ order: 7 }).run().catch((e: unknown) => e))).toBe(true);
    const seen: unknown[] = [];
    const result = await signal('f1', 'go', true, {
      store,
      workflows: {
        Gate: (input, context) => {
          seen.push(context);
          return build(input, context);
        },
      },
    });
    expect(result).toBe('7: true');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ runId: 'f1' });
    expect((seen[0] as { store: unknown }).store).toBe(store);
  });

  it('names a store that exists when given something else', () => {
    const setting = { store: { dir: '.groundswell/runs' } } as unknown as DurableSetting;
    let message = '';
    try {
      createWorkflow({ name: 'Kept', durable: setting }, async () => 1);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('new JournalRunStore() from groundswell/durable');
    expect(message).toContain('new PostgresRunStore() from groundswell/postgres');
  });
});
