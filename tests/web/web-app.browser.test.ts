import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JournalRunStore } from 'groundswell/durable';
import { runChunks, type RunChunk } from 'groundswell/web';
import { STREAM_OPTIONS } from '../../examples/web-app/server.js';
import { useChromium } from '../support/chromium.js';

// The example web app (examples/web-app/) in headless Chromium, its server a child process as
// `npm run example:web` runs it. Skipped with a printed reason where there is no Chromium; required in CI.
const chrome = useChromium();

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TIMEOUT = 90_000;

interface AppServer {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** Everything it printed so far. */
  readonly output: string[];
  readonly exited: Promise<void>;
}

interface ServerEnv {
  readonly dir: string;
  readonly port?: number;
  readonly delayMs: number;
}

const servers: AppServer[] = [];

/** Starts the example's server on `port` (0: a free one) and resolves once it says it listens. */
function startServer({ dir, port = 0, delayMs }: ServerEnv): Promise<AppServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/web-app/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, WEB_APP_PORT: String(port), WEB_APP_STORE: dir, WEB_APP_DELAY_MS: String(delayMs), WEB_APP_PUBLISH_LOG: join(dir, 'published.log') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (data: Buffer) => output.push(data.toString()));
    child.stdout?.on('data', (data: Buffer) => {
      output.push(data.toString());
      const url = /listening on (http:\/\/\S+\/)/.exec(output.join(''))?.[1];
      if (url !== undefined) {
        const server = { url, port: Number(new URL(url).port), child, output, exited };
        servers.push(server);
        resolve(server);
      }
    });
    void exited.then(() => reject(new Error(`The web app's server exited before it listened:\n${output.join('')}`)));
  });
}

async function kill(server: AppServer): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  await server.exited;
}

/** Every chunk of the run as stored, with the ids the app's stream gives them. */
async function storedChunks(dir: string, runId: string): Promise<RunChunk[]> {
  const store = new JournalRunStore({ dir });
  try {
    const out: RunChunk[] = [];
    for await (const chunk of runChunks({ store, runId }, STREAM_OPTIONS)) out.push(chunk);
    return out;
  } finally {
    await store.close();
  }
}

const chunkIds = (page: Page): Promise<string[]> => page.evaluate(() => [...(globalThis as unknown as { __chunkIds: string[] }).__chunkIds]);

/** Stops the page's reading, so the ids it received are final, and returns them. */
const stopReading = (page: Page): Promise<string[]> =>
  page.evaluate(async () => {
    const hooks = globalThis as unknown as { __chunkIds: string[]; __stopReading: () => Promise<void> };
    await hooks.__stopReading();
    return [...hooks.__chunkIds];
  });

const statusIs = (state: string): string => `document.getElementById('status').dataset.state === ${JSON.stringify(state)}`;
/** The report has text while the run is still going: it is shown as it is written. */
const WRITING = `document.getElementById('report').textContent.length > 0 && ${statusIs('running')}`;

async function openApp(server: AppServer, problems: string[]): Promise<Page> {
  const page = await chrome.browser().newPage();
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="1"]');
  return page;
}

async function startRun(page: Page): Promise<string> {
  await page.click('#start');
  await page.waitForSelector('body[data-run-id]');
  return (await page.getAttribute('body', 'data-run-id')) as string;
}

function published(dir: string, runId: string): string[] {
  const log = join(dir, 'published.log');
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((line) => line.startsWith(`${runId}\t`)) : [];
}

function expectEachOnce(received: readonly string[], all: readonly RunChunk[]): void {
  expect(new Set(received).size).toBe(received.length);
  expect([...received].sort()).toEqual(all.map((c) => c.id).sort());
}

afterAll(async () => {
  await Promise.all(servers.map(kill));
});

describe.skipIf(!chrome.ready.ok)('the example web app in Chromium', () => {
  let dir: string;
  let server: AppServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gs-web-app-'));
    server = await startServer({ dir, delayMs: 300 });
  }, TIMEOUT);
  afterAll(async () => {
    if (server !== undefined) await kill(server);
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the report as it is written and the steps with tokens and cost; Approve lets the publish tool run', async () => {
    const problems: string[] = [];
    const page = await openApp(server, problems);
    try {
      const runId = await startRun(page);
      await page.waitForSelector('#approve');
      expect(await page.getAttribute('.tool[data-tool-name="publish"]', 'data-state')).toBe('approval-requested');
      expect(published(dir, runId)).toEqual([]);
      await page.click('#approve');
      await page.waitForFunction(WRITING, undefined, { timeout: TIMEOUT });
      await page.waitForFunction(statusIs('done'), undefined, { timeout: TIMEOUT });

      const all = await storedChunks(dir, runId);
      const report = all.flatMap(({ chunk }) => (chunk.type === 'text-delta' ? [chunk.delta] : [])).join('');
      expect(await page.textContent('#report')).toBe(report);
      expect(report).toContain('Publishing was approved: the publish tool answered "Published "tides" to the wiki."');
      // The text grew in several updates, not at once at the end.
      expect(Number(await page.getAttribute('#report', 'data-updates'))).toBeGreaterThan(1);
      expect(published(dir, runId)).toEqual([`${runId}\ttides`]);
      expect(await page.getAttribute('.tool[data-tool-name="publish"]', 'data-state')).toBe('output-available');

      // The steps as they went: publish first waited for the approval, then ran on in the resumed run.
      const stepsShown = await page.locator('#steps li[data-kind="step"]').evaluateAll((items) =>
        items.map((item) => `${item.getAttribute('data-name') ?? ''} ${item.getAttribute('data-status') ?? ''}`),
      );
      expect(stepsShown).toEqual(['gather completed', 'publish suspended', 'publish completed', 'write completed']);
      const writer = page.locator('#steps li[data-kind="agent"][data-name="writer"]');
      expect(Number(await writer.getAttribute('data-tokens'))).toBeGreaterThan(0);
      expect(await writer.textContent()).toMatch(/\d+ tokens .* · \$0\.\d{6}$/);
      expectEachOnce(await chunkIds(page), all);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, TIMEOUT);

  it('loses and repeats no chunk over reloads mid-run: while it waits for approval and while the report is written', async () => {
    const problems: string[] = [];
    const page = await openApp(server, problems);
    try {
      const runId = await startRun(page);
      await page.waitForSelector('#approve');
      const loads = [await stopReading(page)];
      await page.reload();
      await page.waitForSelector('body[data-ready="1"]');
      // The approval request is rebuilt from the kept chunks.
      await page.click('#approve');
      await page.waitForFunction(WRITING, undefined, { timeout: TIMEOUT });
      loads.push(await stopReading(page));
      await page.reload();
      await page.waitForSelector('body[data-ready="1"]');
      await page.waitForFunction(statusIs('done'), undefined, { timeout: TIMEOUT });
      loads.push(await chunkIds(page));

      const all = await storedChunks(dir, runId);
      const last = (all.at(-1) as RunChunk).id;
      // Each reload came before the run ended.
      expect(loads[0]).not.toContain(last);
      expect(loads[1]).not.toContain(last);
      expect(loads[2]).toContain(last);
      expectEachOnce(loads.flat(), all);
      const report = all.flatMap(({ chunk }) => (chunk.type === 'text-delta' ? [chunk.delta] : [])).join('');
      expect(await page.textContent('#report')).toBe(report);
      expect(published(dir, runId)).toHaveLength(1);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, TIMEOUT);

  it('feeds a denial back to the model as the tool’s result: the tool does not run', async () => {
    const problems: string[] = [];
    const page = await openApp(server, problems);
    try {
      const runId = await startRun(page);
      await page.click('#deny');
      await page.waitForFunction(statusIs('done'), undefined, { timeout: TIMEOUT });
      expect(await page.textContent('#report')).toContain('Publishing was not approved: the publish tool answered "Denied by the user: not this time"');
      expect(await page.getAttribute('.tool[data-tool-name="publish"]', 'data-state')).toBe('output-denied');
      expect(published(dir, runId)).toEqual([]);
      // What the model was sent: the denial as the publish call's result, in the stored call record.
      const store = new JournalRunStore({ dir });
      try {
        const calls = JSON.stringify((await store.loadRun(runId)).calls);
        expect(calls).toContain('Denied by the user: not this time');
      } finally {
        await store.close();
      }
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, TIMEOUT);
});

describe.skipIf(!chrome.ready.ok)('the example web app after its server was killed', () => {
  it('a new server resumes the run, and the page reconnects by itself and completes with every chunk exactly once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-web-app-kill-'));
    const problems: string[] = [];
    const first = await startServer({ dir, delayMs: 400 });
    const page = await openApp(first, problems);
    try {
      const runId = await startRun(page);
      await page.click('#approve');
      await page.waitForFunction(WRITING, undefined, { timeout: TIMEOUT });
      await kill(first);
      // Same port and store: the page's reader finds the new server where the old one was.
      const second = await startServer({ dir, port: first.port, delayMs: 400 });
      await page.waitForFunction(statusIs('done'), undefined, { timeout: TIMEOUT });
      expect(second.output.join('')).toContain(`resuming run ${runId}`);

      const all = await storedChunks(dir, runId);
      expectEachOnce(await chunkIds(page), all);
      // The run was cut mid-answer: what the first server left open shows as interrupted.
      expect(all.some(({ chunk }) => chunk.type === 'data-node' && chunk.data.status === 'interrupted')).toBe(true);
      expect(all.at(-1)?.chunk).toEqual({ type: 'finish', finishReason: 'stop' });
      // The writer started over in the new server: the report is its second text part, whole.
      expect(await page.getAttribute('#report', 'data-parts')).toBe('2');
      expect(await page.textContent('#report')).toContain('Publishing was approved');
      // The approved publication was stored before the kill: the resumed run did not publish again.
      expect(published(dir, runId)).toHaveLength(1);
      expect(problems).toEqual([]);
      await kill(second);
    } finally {
      await page.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, TIMEOUT);
});
