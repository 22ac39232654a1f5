import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { ServiceProbe } from './postgres-service.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** The flags the browser tests run Chromium with (headless, no sandbox in containers, nothing phoning home). */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

/**
 * Whether Debian's Chromium is installed. Where it is not, the browser tests skip and say why;
 * with GROUNDSWELL_REQUIRE_SERVICES=1 (set by .ci/run, which installs it) they fail instead.
 */
export function probeChromium(): ServiceProbe {
  if (existsSync(CHROMIUM_PATH)) return { ok: true, reason: '' };
  const reason = `${CHROMIUM_PATH} is missing (apt-get install chromium; see .ci/run)`;
  if (process.env.GROUNDSWELL_REQUIRE_SERVICES === '1') throw new Error(`${reason}, and GROUNDSWELL_REQUIRE_SERVICES=1 requires it.`);
  console.warn(`skipping browser tests: ${reason}`);
  return { ok: false, reason };
}

/** A test file's headless Chromium: `ready` says whether it is there, `browser()` is the one launched. */
export interface TestChromium {
  readonly ready: ServiceProbe;
  browser(): Browser;
}

/**
 * One headless Chromium for the test file that calls this at its top level: launched before its
 * tests where Chromium is installed, closed after them. Tests that use it sit in
 * `describe.skipIf(!chrome.ready.ok)`.
 */
export function useChromium(): TestChromium {
  const ready = probeChromium();
  let launched: Browser | undefined;
  beforeAll(async () => {
    if (ready.ok) launched = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  }, 30_000);
  afterAll(async () => {
    await launched?.close();
  });
  return {
    ready,
    browser: () => {
      if (launched === undefined) throw new Error('Chromium was not launched: run this test inside describe.skipIf(!chrome.ready.ok)');
      return launched;
    },
  };
}
