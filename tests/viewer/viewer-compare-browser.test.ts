import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkflow } from 'groundswell';
import { exportRecording, JournalRunStore } from 'groundswell/durable';
import { serveViewer, type Viewer } from 'groundswell/viewer';
import { useChromium } from '../support/chromium.js';
import { recordPair } from './compare-pair.js';

// Two runs side by side in a real browser (issue 42, item 4): headless Debian Chromium driven by
// playwright-core. Skipped with a printed reason where there is no Chromium.
const chrome = useChromium();
const chromiumReady = chrome.ready;

let dir: string;
let store: JournalRunStore;
let viewer: Viewer | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-viewer-compare-browser-'));
  store = new JournalRunStore({ dir, fsync: 'off' });
});
afterEach(async () => {
  await viewer?.close();
  viewer = undefined;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function open(url: string): Promise<Page & { problems: string[] }> {
  const page = (await chrome.browser().newPage({ viewport: { width: 1440, height: 900 } })) as Page & { problems: string[] };
  page.problems = [];
  page.on('pageerror', (error) => page.problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') page.problems.push(message.text());
  });
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]');
  return page;
}

describe.skipIf(!chromiumReady.ok)('the compare page in Chromium', () => {
  it('highlights the changed and added rows, shows the summary, and a changed row\u2019s answer diff', async () => {
    const { a, b } = await recordPair(store);
    viewer = await serveViewer();
    const comparison = await viewer.compare(a, b);
    const page = await open(viewer.url);
    try {
      const rows = page.locator('#cmp-rows tr.cmp-row');
      const paths = comparison.nodes.map((n) => n.path);
      const at = (path: string) => rows.nth(paths.indexOf(path));
      expect(await rows.count()).toBe(paths.length);
      expect(await page.locator('#cmp-summary').textContent()).toBe(comparison.summary);
      expect(await page.locator('#mode').textContent()).toBe('compare');
      expect(await page.locator('main').isVisible()).toBe(false);
      expect(await page.title()).toBe('Pipeline · groundswell compare');
      expect(await page.locator('.cmp-legend').textContent()).toBe('changed (3)added in B (2)missing in B (0)4 same');

      expect(await at('Pipeline › ask#1 › counter').getAttribute('class')).toBe('cmp-row chg-changed');
      expect(await at('Pipeline › check').getAttribute('class')).toBe('cmp-row chg-added');
      expect(await at('Pipeline › ask').getAttribute('class')).toBe('cmp-row chg-same');
      // Highlighted rows have a background; same rows stay plain.
      const background = (path: string) => page.evaluate(`getComputedStyle(document.querySelectorAll('#cmp-rows tr.cmp-row')[${paths.indexOf(path)}]).backgroundColor`);
      expect(await background('Pipeline › ask#1 › counter')).not.toBe(await background('Pipeline › ask'));
      expect(await background('Pipeline › check')).not.toBe(await background('Pipeline › ask#1 › counter'));
      expect(await background('Pipeline › ask')).toBe('rgba(0, 0, 0, 0)');
      // A: -, B: the added step.
      const cells = await at('Pipeline › check').locator('td').allTextContents();
      expect(cells[1]).toBe('\u2014');
      expect(cells[5]).toBe('completed');
      const changedCells = await at('Pipeline › ask#1 › counter').locator('td').allTextContents();
      expect([changedCells[0], changedCells[2], changedCells[6]]).toEqual(['counteragentPrompt', '120', '140']);

      await at('Pipeline › ask#1 › counter').click();
      await expect.poll(() => page.locator('#cmp-d-name').textContent()).toBe('counter');
      const diff = (await page.locator('#cmp-diff').textContent()) ?? '';
      expect(diff).toContain('-   "n": 2\n+   "n": 5');
      expect(await page.locator('#cmp-diff .diff-del').first().textContent()).toContain('"n": 2');
      expect(await page.locator('#cmp-diff .diff-add').first().textContent()).toContain('"n": 5');
      expect(await page.locator('#cmp-details').textContent()).toContain('tokens+20');
      expect(await at('Pipeline › ask#1 › counter').getAttribute('class')).toContain('selected');
      expect(page.problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 30_000);

  it('escapes names and answers: markup shows as text and never runs', async () => {
    const evil = '<img src=x onerror="window.__xss=1">';
    const step = '<b onmouseover="window.__xss=3">bold</b>';
    const run = async (runId: string, answer: string) => {
      const wf = createWorkflow({ name: evil, durable: { store, runId } }, (ctx) => ctx.step(step, () => answer));
      await wf.run();
      return exportRecording(store, runId);
    };
    const a = await run('a', '<svg onload="window.__xss=4">');
    const b = await run('b', '<script>window.__xss=2</script>');
    viewer = await serveViewer();
    await viewer.compare(a, b);
    const page = await open(viewer.url);
    try {
      const rows = page.locator('#cmp-rows tr.cmp-row');
      expect(await rows.locator('.cmp-label').allTextContents()).toEqual([evil, step]);
      await rows.nth(1).hover();
      await rows.nth(1).click();
      await expect.poll(() => page.locator('#cmp-d-name').textContent()).toBe(step);
      const diff = (await page.locator('#cmp-diff').textContent()) ?? '';
      expect(diff).toContain('<svg onload=\\"window.__xss=4\\">');
      expect(diff).toContain('<script>window.__xss=2</script>');
      expect(await page.locator('#run-title').textContent()).toBe(evil);
      expect(await page.title()).toBe(`${evil} · groundswell compare`);
      expect(await page.evaluate('window.__xss')).toBeUndefined();
      expect(await page.locator('img, svg, b, #compare script').count()).toBe(0);
      expect(page.problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 30_000);
});
