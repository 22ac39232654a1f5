import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkflow, isSuspension, signal, type Workflow } from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { otelObserver } from 'groundswell/otel';
import { FakeClock } from '../support/fake-clock.js';
import { hrMs, memoryTracing, named, parentOf } from './span-helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-replayed-spans-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('groundswell/otel: a resumed durable run', () => {
  it('a replayed step’s span is marked replayed, and every span ends after it starts, inside its parent’s', async () => {
    const store = new JournalRunStore({ dir, fsync: 'off' });
    const clock = new FakeClock();
    const build = (): Workflow<number> =>
      createWorkflow({ name: 'Fetch', clock, durable: { store, runId: 'fetch' } }, async (ctx) => {
        const rows = await ctx.step('fetch', () => {
          clock.advance(1_500);
          return 3;
        });
        await ctx.waitFor('go', z.literal('go'));
        return ctx.step('count', () => rows + 1);
      });
    expect(isSuspension(await build().run().catch((error: unknown) => error))).toBe(true);
    clock.advance(60_000);
    const tracing = memoryTracing();
    const observer = await otelObserver({ tracerProvider: tracing.provider });
    const result = await signal('fetch', 'go', 'go', {
      store,
      workflows: {
        Fetch: () => {
          const workflow = build();
          workflow.addObserver(observer);
          return workflow;
        },
      },
    });
    await store.close();
    expect(result).toBe(4);
    const spans = tracing.spans();
    expect(named(spans, 'step fetch')[0]?.attributes['groundswell.replayed']).toBe(true);
    expect(named(spans, 'step count')[0]?.attributes['groundswell.replayed']).toBeUndefined();
    for (const span of spans) {
      expect(hrMs(span.endTime)).toBeGreaterThanOrEqual(hrMs(span.startTime));
      const parent = parentOf(span, spans);
      if (parent === undefined) continue;
      expect(hrMs(span.startTime)).toBeGreaterThanOrEqual(hrMs(parent.startTime));
      expect(hrMs(span.endTime)).toBeLessThanOrEqual(hrMs(parent.endTime));
    }
  });
});
