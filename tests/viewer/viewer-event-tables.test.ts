import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkflow, isSuspension } from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { serveViewer, type Viewer, type ViewerWait } from 'groundswell/viewer';
import { dispatchEvent } from '../../src/types/event-table.js';
import type { RunWaitEvent } from '../../src/types/events.js';
import { ROOT_WAIT_EVENTS } from '../../src/viewer/wait-events.js';
import { openEvents } from './http-get.js';

// The viewer's event tables: one decision per event type, doing what the if-chains they replaced did.
const base = { id: 1, nodeId: 'root', workflowId: 'root', timestamp: 1_000 } as const;
const waitEvent = (type: RunWaitEvent['type'], extra: Partial<RunWaitEvent> = {}): RunWaitEvent => ({ ...base, type, name: 'approval', ...extra });

let viewer: Viewer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await viewer?.close();
  viewer = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('the viewer event tables', () => {
  it('set the wait banner on the root’s waitStarted, clear it on signalReceived, and leave it on the rest', () => {
    expect(dispatchEvent(ROOT_WAIT_EVENTS, waitEvent('waitStarted'))).toEqual({ name: 'approval', since: 1_000 });
    expect(dispatchEvent(ROOT_WAIT_EVENTS, waitEvent('waitStarted', { timeoutAt: 5_000 }))).toEqual({ name: 'approval', since: 1_000, timeoutAt: 5_000 });
    expect(dispatchEvent(ROOT_WAIT_EVENTS, waitEvent('signalReceived'))).toBeNull();
    expect(dispatchEvent(ROOT_WAIT_EVENTS, waitEvent('signalRejected', { reason: 'no' }))).toBeUndefined();
    expect(dispatchEvent(ROOT_WAIT_EVENTS, { ...base, type: 'workflowStart', name: 'Release' })).toBeUndefined();
  });

  it('show a live root’s wait in the batches an open page gets', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gs-viewer-tables-'));
    viewer = await serveViewer({ batchMs: 20 });
    const wf = createWorkflow({ name: 'Release', durable: { store: new JournalRunStore({ dir, fsync: 'off' }), runId: 'rel' } }, async (ctx) => {
      const decision = await ctx.waitFor('approval', z.object({ ok: z.boolean() }));
      return decision.ok;
    });
    viewer.attach(wf);
    const events = await openEvents(viewer.url);
    await events.next((m) => m.event === 'snapshot');
    expect(isSuspension(await wf.run().catch((error: unknown) => error))).toBe(true);
    const batch = await events.next((m) => m.event === 'nodes' && (m.data as { wait: ViewerWait | null }).wait !== null);
    expect((batch.data as { wait: ViewerWait }).wait).toMatchObject({ name: 'approval', since: expect.any(Number) });
    events.drop();
  });
});
