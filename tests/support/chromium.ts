import { existsSync } from 'node:fs';
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
