import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkflow, isSuspension, signal, type RunExport, type Workflow } from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { serveViewer } from 'groundswell/viewer';
import { useChromium } from '../support/chromium.js';
import { FakeClock } from '../support/fake-clock.js';

const chrome = useChromium();
const chromiumReady = chrome.ready;

const row = (page: Page, name: string) => page.locator('.row', { has: page.locator('.c-name > span:first-child', { hasText: new RegExp(`^${name}$`) }) });

/** The stored tree of a run whose step `fetch` (1.5 s) replayed after a wait, and whose step `count` ran in the resuming process. */
async function resumedRun(dir: string): Promise<RunExport> {
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
  try {
    expect(isSuspension(await build().run().catch((error: unknown) => error))).toBe(true);
    clock.advance(60_000);
    expect(await signal('fetch', 'go', 'go', { store, workflows: { Fetch: build } })).toBe(4);
    return (await store.loadRun('fetch')).tree as RunExport;
  } finally {
    await store.close();
  }
}

describe.skipIf(!chromiumReady.ok)('the viewer and a resumed durable run', () => {
  it('marks a replayed step, says it ran in an earlier process, and shows the time it took then', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-viewer-replayed-'));
    const viewer = await serveViewer();
    let page: Page | undefined;
    try {
      viewer.show(await resumedRun(dir));
      page = await chrome.browser().newPage({ viewport: { width: 1440, height: 900 } });
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(viewer.url);
      await page.waitForSelector('body[data-ready="1"]');
      await page.click('#expand-all');
      expect(await row(page, 'fetch').locator('.c-replayed').textContent()).toBe('replayed');
      expect(await row(page, 'fetch').locator('.c-replayed').getAttribute('title')).toBe('ran in an earlier process; its times are from then');
      expect(await row(page, 'fetch').locator('.c-dur').textContent()).toBe('1.50s');
      expect(await row(page, 'count').locator('.c-replayed').textContent()).toBe('');
      await row(page, 'fetch').click();
      await expect.poll(() => page?.locator('#d-name').textContent()).toBe('fetch');
      const details = await page.locator('#details').innerText();
      expect(details).toMatch(/replayed\s+ran in an earlier process; its times are from then/);
      expect(problems).toEqual([]);
    } finally {
      await page?.close();
      await viewer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
