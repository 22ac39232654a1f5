import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkflow, isSuspension, type RunExport } from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { serveViewer, type ViewerWait } from 'groundswell/viewer';
import { runCli } from '../../src/cli/run-cli.js';
import { useChromium } from '../support/chromium.js';
import { deferred } from '../support/deferred.js';

// Approving from the viewer in a real browser (decision 0081): headless Debian Chromium driven by
// playwright-core. Skipped with a printed reason where there is no Chromium; required in CI.
const chrome = useChromium();
const chromiumReady = chrome.ready;

describe.skipIf(!chromiumReady.ok)('answering a wait from the viewer in Chromium', () => {
  it('fills the form built from the wait\u2019s schema, shows a refusal, then sends: the store holds the signal and the page says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-viewer-approve-'));
    const store = new JournalRunStore({ dir, fsync: 'off' });
    const stop = deferred<void>();
    let code: Promise<number> | undefined;
    const page = await chrome.browser().newPage({ viewport: { width: 1280, height: 800 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    try {
      const wf = createWorkflow({ name: 'Release', durable: { store, runId: 'rel' } }, async (ctx) => {
        await ctx.step('draft', () => 'notes');
        const decision = await ctx.step('approve', () =>
          ctx.waitFor('approval', z.object({ approved: z.boolean(), note: z.string().min(3), channel: z.enum(['stable', 'beta']) })),
        );
        return decision.approved ? 'shipped' : 'held';
      });
      expect(isSuspension(await wf.run().catch((error: unknown) => error))).toBe(true);
      const out: string[] = [];
      const printed = deferred<void>();
      code = runCli(['view', 'rel', '--store', dir, '--allow-signals'], { out: (t) => (out.push(t), printed.resolve()), err: () => undefined }, stop.promise);
      await printed.promise;
      await page.goto(/(http:\/\/[^ ]+\/)/.exec(out[0] ?? '')?.[1] ?? '');
      await page.waitForSelector('body[data-ready="1"]');

      // One control per property, of the property's type.
      const form = page.locator('#signal-form');
      await form.waitFor();
      expect(await form.locator('[name="approved"]').getAttribute('type')).toBe('checkbox');
      expect(await form.locator('[name="note"]').getAttribute('type')).toBe('text');
      expect(await form.locator('[name="channel"] option').allTextContents()).toEqual(['stable', 'beta']);

      // The server checks the value against the wait's schema; its refusal shows in the page.
      await form.locator('[name="approved"]').check();
      await form.locator('[name="note"]').fill('ok');
      await page.click('#signal-send');
      await expect.poll(() => page.locator('#signal-result').textContent()).toMatch(/does not fit what the run waits for \(note: /);
      expect(await page.locator('#signal-result').getAttribute('class')).toContain('error');

      await form.locator('[name="note"]').fill('ship it');
      await form.locator('[name="channel"]').selectOption({ label: 'beta' });
      await page.click('#signal-send');
      await expect
        .poll(() => page.locator('#signal-answered').textContent())
        .toBe('\u2713 Signal "approval" stored for run rel; resume it with: groundswell runs resume rel --workflows <module>');
      expect(await page.locator('#signal-form').count()).toBe(0);

      // Read back by a store that did not send it.
      const fresh = new JournalRunStore({ dir, fsync: 'off' });
      try {
        const signals = (await fresh.loadRun('rel')).signals;
        expect(signals.map(({ name, value }) => ({ name, value }))).toEqual([{ name: 'approval', value: { approved: true, note: 'ship it', channel: 'beta' } }]);
      } finally {
        await fresh.close();
      }
      // A page opened after the answer shows it too (no second form to send again).
      await page.reload();
      await page.waitForSelector('body[data-ready="1"]');
      await expect.poll(() => page.locator('#signal-answered').textContent()).toMatch(/^\u2713 Signal "approval" stored/);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      stop.resolve();
      await code;
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('gives a wait whose schema is not a flat object one JSON textarea, and sends what it holds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-viewer-approve-json-'));
    const store = new JournalRunStore({ dir, fsync: 'off' });
    const viewer = await serveViewer({ allowSignals: true, batchMs: 20 });
    const page = await chrome.browser().newPage();
    try {
      const wf = createWorkflow({ name: 'Pick', durable: { store, runId: 'pick' } }, async (ctx) => {
        const picked = await ctx.step('choose', () => ctx.waitFor('files', z.array(z.string())));
        return picked.length;
      });
      expect(isSuspension(await wf.run().catch((error: unknown) => error))).toBe(true);
      const loaded = await store.loadRun('pick');
      viewer.show(loaded.tree as RunExport, { waitingFor: loaded.run.waitingFor as ViewerWait, signalTo: { store, runId: 'pick' } });
      await page.goto(viewer.url);
      await page.waitForSelector('body[data-ready="1"]');
      const area = page.locator('#signal-form textarea[name="value"]');
      await area.fill('["a.ts", ');
      await page.click('#signal-send');
      await expect.poll(() => page.locator('#signal-result').textContent()).toMatch(/must be JSON/);
      await area.fill('["a.ts", "b.ts"]');
      await page.click('#signal-send');
      await expect.poll(() => page.locator('#signal-answered').textContent()).toMatch(/^\u2713 Signal "files" stored for run pick/);
      expect((await store.loadRun('pick')).signals.map((signal) => signal.value)).toEqual([['a.ts', 'b.ts']]);
    } finally {
      await page.close();
      await viewer.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
