import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, exportRun, isSuspension } from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { json, ScriptedModel } from 'groundswell/testing';
import { serveViewer, type Viewer } from 'groundswell/viewer';
import { runCli } from '../../src/cli/run-cli.js';
import { Answer } from '../support/agent-helpers.js';
import { useChromium } from '../support/chromium.js';
import { deferred } from '../support/deferred.js';
import { agentModel } from '../support/model-path.js';
import { GITHUB_TOKEN, releaseRun } from './release-run.js';

// What users of other run viewers look for, in a real browser (headless Debian Chromium).
const chrome = useChromium();
const chromiumReady = chrome.ready;

async function open(url: string): Promise<Page & { problems: string[] }> {
  const page = Object.assign(await chrome.browser().newPage({ viewport: { width: 1440, height: 900 }, acceptDownloads: true }), { problems: [] as string[] });
  page.on('pageerror', (error) => page.problems.push(error.message));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]');
  return page;
}
const row = (page: Page, name: string) =>
  page.locator('.row', { has: page.locator('.c-name > span:first-child', { hasText: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) });

describe.skipIf(!chromiumReady.ok)('viewer features in Chromium', () => {
  it('shows a stored suspended run as waiting: its icon, the filter option, and a banner naming the wait and its schema', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-viewer-wait-'));
    const store = new JournalRunStore({ dir, fsync: 'off' });
    const stop = deferred<void>();
    let page: (Page & { problems: string[] }) | undefined;
    let code: Promise<number> | undefined;
    try {
      const wf = createWorkflow({ name: 'Release', durable: { store, runId: 'rel' } }, async (ctx) => {
        await ctx.step('draft', () => 'notes');
        const decision = await ctx.step('approve', () => ctx.waitFor('approval', z.object({ ok: z.boolean() })));
        return decision.ok ? 'shipped' : 'held';
      });
      expect(isSuspension(await wf.run().catch((error: unknown) => error))).toBe(true);
      const out: string[] = [];
      const printed = deferred<void>();
      code = runCli(['view', 'rel', '--store', dir], { out: (t) => (out.push(t), printed.resolve()), err: () => undefined }, stop.promise);
      await printed.promise;
      const url = /(http:\/\/[^ ]+\/)/.exec(out[0] ?? '')?.[1] ?? '';
      page = await open(url);
      await expect.poll(() => page?.locator('#wait-line').textContent()).toMatch(/^⏸ Waiting for signal “approval” since \d{4}-/);
      expect(await page.locator('#wait').isVisible()).toBe(true);
      expect(JSON.parse((await page.locator('#wait-schema').textContent()) ?? '')).toMatchObject({ type: 'object', properties: { ok: { type: 'boolean' } } });
      await page.click('#expand-all');
      expect(await row(page, 'approve').getAttribute('class')).toContain('s-suspended');
      expect(await row(page, 'approve').locator('.icon').textContent()).toBe('⏸');
      expect(await row(page, 'approve').locator('.icon').getAttribute('title')).toBe('suspended');
      await page.selectOption('#f-status', 'suspended');
      await expect.poll(() => page?.locator('.row:visible .c-name > span:first-child').allTextContents()).toEqual(['Release', 'approve']);
      expect(await page.locator('#f-status option[value="suspended"]').textContent()).toBe('waiting (suspended)');
      expect(page.problems).toEqual([]);
    } finally {
      await page?.close();
      stop.resolve();
      await code;
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('drops the LIVE pill when the run ends, and shows a failed node\'s error with its cause chain in plain view', async () => {
    const viewer = await serveViewer({ batchMs: 20 });
    const gate = deferred<void>();
    const wf = createWorkflow({ name: 'sync' }, async (ctx) => {
      await gate.promise;
      await ctx.step('fetch', () => {
        throw new Error('fetch failed: upstream closed', { cause: new Error('socket hang up', { cause: new Error('ECONNRESET') }) });
      });
    });
    viewer.attach(wf);
    const page = await open(viewer.url);
    try {
      const running = wf.run().catch(() => undefined);
      await expect.poll(() => page.locator('#mode').textContent()).toBe('live');
      gate.resolve();
      await running;
      await expect.poll(() => page.locator('#mode').textContent()).toBe('failed');
      expect(await page.locator('#mode').getAttribute('class')).not.toContain('live');
      await row(page, 'fetch').click();
      await expect.poll(() => page.locator('#d-error').isVisible()).toBe(true);
      expect(await page.locator('#d-error').innerText()).toBe(
        'WorkflowError: Step "fetch" of workflow "sync" failed: fetch failed: upstream closed\ncaused by Error: fetch failed: upstream closed\ncaused by Error: socket hang up\ncaused by Error: ECONNRESET',
      );
      expect(page.problems).toEqual([]);
    } finally {
      await page.close();
      await viewer.close();
    }
  }, 30_000);

  it('reads sub-millisecond durations as <1ms, selects the node a #node= link names, and downloads the run', async () => {
    const wf = createWorkflow({ name: 'quick' }, async (ctx) => {
      await ctx.step('instant', () => 1);
      await ctx.step('target', () => 2);
    });
    await wf.run();
    const run = exportRun(wf.node);
    const instant = run.root.children[0];
    if (instant === undefined || instant.startTime === undefined) throw new Error('no first step');
    instant.endTime = instant.startTime;
    instant.duration = 0;
    const viewer = await serveViewer();
    viewer.show(run);
    const target = run.root.children[1]?.id ?? '';
    const page = await open(`${viewer.url}#node=${encodeURIComponent(target)}`);
    const dir = mkdtempSync(join(tmpdir(), 'gs-viewer-download-'));
    try {
      await expect.poll(() => page.locator('#d-name').textContent()).toBe('target');
      expect(await row(page, 'target').getAttribute('class')).toContain('selected');
      expect(await row(page, 'instant').locator('.c-dur').textContent()).toBe('<1ms');
      await row(page, 'instant').click();
      await expect.poll(() => page.evaluate<string>('location.hash')).toBe(`#node=${encodeURIComponent(instant.id)}`);

      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
      const saved = join(dir, 'run.json');
      await download.saveAs(saved);
      const downloaded = JSON.parse(readFileSync(saved, 'utf8')) as typeof run;
      expect(downloaded.format).toBe('groundswell.run');
      expect(downloaded.root.children.map((c) => c.name)).toEqual(['instant', 'target']);
      expect(page.problems).toEqual([]);
    } finally {
      await page.close();
      await viewer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('draws the tree under a #node= link whose id cannot be decoded, selecting nothing', async () => {
    const wf = createWorkflow({ name: 'quick' }, async (ctx) => {
      await ctx.step('only', () => 1);
    });
    await wf.run();
    const viewer = await serveViewer();
    viewer.show(exportRun(wf.node));
    try {
      for (const hash of ['#node=%', '#node=%E0%A4%A', '#node=x%ZZ']) {
        const page = Object.assign(await chrome.browser().newPage(), { problems: [] as string[] });
        page.on('pageerror', (error) => page.problems.push(error.message));
        try {
          await page.goto(`${viewer.url}${hash}`);
          // A thrown URIError would cancel the first draw: the page would never be ready.
          await page.waitForSelector('body[data-ready="1"]', { timeout: 5000 });
          expect(await page.locator('.row').count()).toBe(2);
          expect(await page.locator('#empty').isVisible()).toBe(false);
          expect(await page.locator('.row.selected').count()).toBe(0);
          expect([hash, page.problems]).toEqual([hash, []]);
        } finally {
          await page.close();
        }
      }
    } finally {
      await viewer.close();
    }
  }, 30_000);

  it('shows an agent call\'s conversation as the tree holds it: each turn, its tool uses and results (masked), and a row per model request', async () => {
    const { workflow, gathered } = releaseRun();
    gathered.resolve();
    await workflow.run();
    const requests = exportRun(workflow.node).root.children[0]?.children[0]?.events.filter((e) => e.type === 'modelRequest') ?? [];
    expect(requests.length).toBeGreaterThan(1);
    const viewer = await serveViewer();
    viewer.attach(workflow);
    const page = await open(viewer.url);
    try {
      await page.click('#expand-all');
      await row(page, 'researcher: What changed since v1.9.0?').click();
      await expect.poll(() => page.locator('#d-conversation').isVisible()).toBe(true);
      const turns = page.locator('#d-conversation .turn');
      expect(await turns.count()).toBe(requests.length);
      expect(await turns.first().locator('.title').textContent()).toMatch(/^turn 1 · /);
      const conversation = (await page.locator('#d-conversation').innerText()) ?? '';
      expect(conversation).toContain('tool use git_log');
      expect(conversation).toContain('"since": "v1.9.0"');
      expect(conversation).toContain('x-access-token:***@github.com');
      expect(conversation).not.toContain(GITHUB_TOKEN);
      expect(await page.locator('#d-requests tr').count()).toBe(requests.length + 1);
      expect(page.problems).toEqual([]);
    } finally {
      await page.close();
      await viewer.close();
    }
  }, 30_000);

  it("shows a budget's limit, spent and reserved as work below it runs, then its warning and refusal", async () => {
    const started = deferred<void>();
    const arrived = deferred<void>();
    const release = deferred<void>();
    const model = new ScriptedModel(async (_request, index) => {
      if (index === 0) {
        arrived.resolve();
        await release.promise;
      }
      return json({ answer: 'ok' });
    });
    const agent = createAgent({ name: 'worker', ...(await agentModel(model)) });
    const ask = (user: string) => createPrompt({ user, responseFormat: Answer });
    const wf = createWorkflow({ name: 'budgeted', budget: { modelRequests: 2 } }, async (ctx) => {
      await started.promise;
      await ctx.step('first', () => agent.prompt(ask('one')));
      await ctx.step('more', async () => [await agent.prompt(ask('two')), await agent.prompt(ask('three'))]);
    });
    const viewer = await serveViewer({ batchMs: 20 });
    viewer.attach(wf);
    const page = await open(viewer.url);
    const cells = () => page.locator('#d-budget tr[data-dimension="modelRequests"] td').allTextContents();
    try {
      await row(page, 'budgeted').click();
      const running = wf.run().catch(() => undefined);
      // Limit, spent, reserved, of, used.
      await expect.poll(cells).toEqual(['modelRequests', '0', '0', '2', '0%']);
      expect(await page.locator('#d-budget .title').textContent()).toBe('budget (workflow "budgeted")');
      await page.click('#d-events summary');
      started.resolve();
      await arrived.promise;
      // A hold emits no event: the page reads a selected budget again each second of a live run.
      await expect.poll(cells, { timeout: 5_000 }).toEqual(['modelRequests', '0', '1', '2', '50%']);
      // Read again, the same node keeps its events list open.
      expect(await page.locator('#d-events details').getAttribute('open')).toBe('');
      release.resolve();
      await running;
      await expect.poll(cells).toEqual(['modelRequests', '2', '0', '2', '100%']);
      const events = await page.locator('#d-budget-events li').allTextContents();
      expect(events.map((text) => text.replace(/ · \d{4}-.*$/, ''))).toEqual([
        '\u26A0 warning at 80%: modelRequests 1 spent + 1 reserved of 2, needed 1',
        '\u2717 exceeded: modelRequests 2 spent + 0 reserved of 2, needed 1',
      ]);
      expect(await page.locator('#d-budget .card .bad').textContent()).toBe('refused work at its modelRequests limit');
      expect(page.problems).toEqual([]);
    } finally {
      await page.close();
      await viewer.close();
    }
  }, 30_000);

  it('draws a timeline of where the time went: the node and its children as bars on its own span', async () => {
    const wf = createWorkflow({ name: 'build' }, async (ctx) => {
      await ctx.step('setup', () => 1);
      await ctx.step('compile', () => 2);
    });
    await wf.run();
    const run = exportRun(wf.node);
    // Times set by hand: setup takes the first 10% of the run, compile the other 90%.
    const [setup, compile] = run.root.children;
    if (setup === undefined || compile === undefined) throw new Error('two steps expected');
    Object.assign(run.root, { startTime: 1_000, endTime: 1_100, duration: 100 });
    Object.assign(setup, { startTime: 1_000, endTime: 1_010, duration: 10 });
    Object.assign(compile, { startTime: 1_010, endTime: 1_100, duration: 90 });
    const viewer = await serveViewer();
    viewer.show(run);
    const page = await open(viewer.url);
    try {
      await row(page, 'build').click();
      await expect.poll(() => page.locator('#d-timeline').isVisible()).toBe(true);
      const bars = await page.locator('#d-timeline .tl-row').evaluateAll((rows) =>
        rows.map((r) => `${r.querySelector('.tl-name')?.textContent} ${r.querySelector('.tl-bar')?.getAttribute('style')}`),
      );
      expect(bars).toEqual(['build left: 0%; width: 100%;', 'setup left: 0%; width: 10%;', 'compile left: 10%; width: 90%;']);
      await page.locator('#d-timeline .tl-row').nth(2).click();
      await expect.poll(() => page.locator('#d-name').textContent()).toBe('compile');
      expect(page.problems).toEqual([]);
    } finally {
      await page.close();
      await viewer.close();
    }
  }, 30_000);
});
