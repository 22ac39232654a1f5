import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runProcess } from './run-process.js';

// `npm pack` (and `npm publish`) builds first: whatever the bundler warns about is printed to whoever
// packs. The JavaScript build runs here with the package's own tsup config, into a scratch folder
// (declarations are left out: they come from TypeScript, not from esbuild's bundling).

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsup = join(root, 'node_modules', 'tsup', 'dist', 'cli-default.js');

describe('the build', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'groundswell-build-'));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('bundles every entry without a warning (no import dropped as side-effect free)', async () => {
    const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
    const { stdout, stderr } = await runProcess(process.execPath, [tsup, '--out-dir', outDir, '--no-dts'], { cwd: root, env, label: 'tsup' });
    const output = `${stdout}\n${stderr}`.replace(/\x1b\[[0-9;]*m/g, '');
    expect(output).toContain('Build success');
    const warnings = output.split('\n').filter((line) => /\bWARN\b|\[WARNING\]|ignored-bare-import/.test(line));
    expect(warnings).toEqual([]);
  }, 120_000);
});
