/**
 * The package as users get it: dist/, built by `npm run build` (tsup). Every workload imports
 * `groundswell` from there (bench/tsconfig.run.json maps nothing, so the package's own `exports`
 * resolve it), not from src/ through tsx: tsx compiles with esbuild's keepNames, which wraps
 * every function a call creates in a `__name()` call that the built package does not have.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIST_ENTRY = join(ROOT, 'dist', 'index.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** What dist/ is built from besides src/: a changed dependency or build setting changes the bundle too. */
const BUILD_INPUTS = ['package.json', 'package-lock.json', 'tsup.config.ts'] as const;

function mtimeOrZero(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** dist/ as `npm run build` makes it, rebuilt when missing or older than any file in src/ or any build input. */
export function ensureDist(): void {
  const built = mtimeOrZero(DIST_ENTRY);
  const inputs = Math.max(newestMtime(join(ROOT, 'src')), ...BUILD_INPUTS.map((file) => mtimeOrZero(join(ROOT, file))));
  if (built > inputs) return;
  console.log(`(dist/ ${built === 0 ? 'missing' : `older than src/ or ${BUILD_INPUTS.join(', ')}`}: running npm run build first)`);
  const result = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8', shell: process.platform === 'win32' });
  if (result.status !== 0) throw new Error(`bench: npm run build failed\n${result.stdout}\n${result.stderr}`);
}

/** Fails unless `groundswell` resolves to the built package: a bench of src/ through tsx measures code nobody runs. */
export function assertBuiltPackage(): void {
  const resolved = import.meta.resolve('groundswell');
  if (resolved !== new URL('../dist/index.js', import.meta.url).href) {
    throw new Error(`bench: 'groundswell' resolves to ${resolved}, not dist/index.js; run it as npm run bench (tsx --tsconfig bench/tsconfig.run.json)`);
  }
}
