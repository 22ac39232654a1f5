import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWorkflow } from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { runCli } from '../../src/cli/run-cli.js';
import { readableStepKey } from '../../src/durable/replay/step-path.js';
import { useChromium } from '../support/chromium.js';
import { deferred } from '../support/deferred.js';

// The fork command of a stored run's step, in a real browser (issue 42, item 3): headless Debian
// Chromium driven by playwright-core. Skipped with a printed reason where there is no Chromium.
const chrome = useChromium();
const chromiumReady = chrome.ready;

/** A command line's words as a POSIX shell splits them: spaces, single quotes, a backslash outside them. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i] as string;
    if (c === ' ') {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unclosed quote in ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '\\') {
      word = (word ?? '') + (line[i + 1] ?? '');
      i += 1;
    } else word = (word ?? '') + c;
  }
  if (word !== null) words.push(word);
  return words;
}

describe.skipIf(!chromiumReady.ok)('the fork command in Chromium', () => {
  it('shows a stored step\u2019s fork command; pasted, it forks at that step', async () => {
    const dir = mkdtempSync(join(tmpdir(), "gs-viewer-fork it's-"));
    const store = new JournalRunStore({ dir, fsync: 'off' });
    const stop = deferred<void>();
    let code: Promise<number> | undefined;
    const page = await chrome.browser().newPage({ viewport: { width: 1280, height: 800 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    try {
      const wf = createWorkflow({ name: 'Pipeline', durable: { store, runId: 'r1' } }, async (ctx) => {
        const out: string[] = [];
        for (let i = 0; i < 2; i += 1) out.push(await ctx.step('s', () => `recorded ${i}`));
        return out;
      });
      expect(await wf.run()).toEqual(['recorded 0', 'recorded 1']);
      const out: string[] = [];
      const printed = deferred<void>();
      code = runCli(['view', 'r1', '--store', dir], { out: (t) => (out.push(t), printed.resolve()), err: () => undefined }, stop.promise);
      await printed.promise;
      await page.goto(/(http:\/\/[^ ]+\/)/.exec(out[0] ?? '')?.[1] ?? '');
      await page.waitForSelector('body[data-ready="1"]');

      // A workflow is no fork point: no line.
      const rows = page.locator('.row', { has: page.locator('.c-name > span:first-child', { hasText: /^s$/ }) });
      await page.locator('.row', { has: page.locator('.c-name > span:first-child', { hasText: /^Pipeline$/ }) }).click();
      await expect.poll(() => page.locator('#d-name').textContent()).toBe('Pipeline');
      expect(await page.locator('#d-fork').count()).toBe(0);

      await rows.nth(1).click();
      await page.locator('#d-fork-command').waitFor();
      const command = (await page.locator('#d-fork-command').textContent()) ?? '';
      // The folder holds a ' and a space: quoted for a shell.
      expect(command).toBe(`groundswell runs fork r1 --at 'Pipeline › s#1' --store '${dir.replace("'", "'\\''")}' --workflows <module>`);
      expect(await page.locator('#d-fork').textContent()).toContain('Fork here');
      // Copied where the clipboard is allowed, else selected for copying by hand.
      await page.click('#d-fork-copy');
      await expect.poll(() => page.locator('#d-fork-copy').textContent()).toMatch(/^(Copied|Selected: copy it)$/);
      await rows.nth(0).click();
      await expect.poll(() => page.locator('#d-fork-command').textContent()).toContain("--at 'Pipeline › s' ");
      expect(problems).toEqual([]);

      // The --at value names the second stored step, as readableStepKey reads its key.
      const words = shellWords(command);
      const at = words[words.indexOf('--at') + 1];
      const keys = (await store.loadRun('r1')).steps.map((step) => step.key);
      expect(keys.filter((key) => readableStepKey(key) === at)).toEqual(['/Pipeline#0:s#1']);

      // Pasted with a workflows module in place of <module>: the fork runs the second step live.
      stop.resolve();
      expect(await code).toBe(0);
      const module = join(dir, 'workflows.mjs');
      writeFileSync(
        module,
        `import { createWorkflow } from 'groundswell';\nexport const workflows = { Pipeline: () => createWorkflow({ name: 'Pipeline' }, async (ctx) => {\n` +
          `  const out = [];\n  for (let i = 0; i < 2; i += 1) out.push(await ctx.step('s', () => 'live ' + i));\n  return out;\n}) };\n`,
      );
      expect(words.slice(0, 3)).toEqual(['groundswell', 'runs', 'fork']);
      const forked: string[] = [];
      const args = words.slice(1).map((word) => (word === '<module>' ? module : word));
      const forkCode = await runCli(args, { out: (t) => forked.push(t), err: (t) => forked.push(t) });
      expect([forkCode, forked.join('\n')]).toEqual([0, expect.stringMatching(/^Forked run r1 at Pipeline › s#1 into run r1-fork-\w+, which completed: \["recorded 0","live 1"\]$/)]);
    } finally {
      await page.close();
      stop.resolve();
      await code;
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
