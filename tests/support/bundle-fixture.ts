import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { alias } from '../../vitest.shared.js';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Bundles a fixture that tests run as child processes, once: under the repository (so its packages
 * resolve) with every groundswell entry mapped to `src/`, as in the tests themselves. A child then
 * starts in about a second instead of compiling the sources again. Returns the file and its cleanup.
 */
export async function bundleFixture(fixture: string, label: string): Promise<{ file: string; remove: () => void }> {
  const file = join(ROOT, '.tmp', `${label}-${process.pid}.mjs`);
  await build({
    entryPoints: [fixture],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: file,
    packages: 'external',
    alias,
    logLevel: 'error',
  });
  return { file, remove: () => rmSync(file, { force: true }) };
}
