import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join, relative } from 'node:path';
import { runProcess, npmCommand } from './run-process.js';

/** What tsup reads: a change to any of these makes dist/ stale. */
const BUILD_INPUTS = ['src', 'package.json', 'tsup.config.ts', 'tsconfig.base.json', 'tsconfig.build.json'];

/** Every file the package's `main`/`module`/`types`/`exports`/`typesVersions` point at, relative to the root. */
export function publishedFiles(packageJson: Record<string, unknown>): string[] {
  const files = new Set<string>();
  const collect = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value.startsWith('./dist/') || value.startsWith('dist/')) files.add(value.replace(/^\.\//, ''));
    } else if (typeof value === 'object' && value !== null) {
      for (const item of Object.values(value)) collect(item);
    }
  };
  collect([packageJson.main, packageJson.module, packageJson.types, packageJson.exports, packageJson.typesVersions]);
  return [...files].sort();
}

function newestMtime(path: string): { file: string; mtime: number } {
  const stat = statSync(path);
  let newest = { file: path, mtime: stat.mtimeMs };
  // A directory's own mtime changes when a file in it is deleted or renamed, which also stales dist/.
  if (stat.isDirectory()) {
    for (const entry of readdirSync(path)) {
      const inner = newestMtime(join(path, entry));
      if (inner.mtime > newest.mtime) newest = inner;
    }
  }
  return newest;
}

/** Why dist/ cannot be packed as it is (missing or older than an input), or undefined when it is fresh. */
export function distStaleness(root: string): string | undefined {
  const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  const outputs = publishedFiles(packageJson);
  const missing = outputs.find((file) => !existsSync(join(root, file)));
  if (missing !== undefined) return `${missing} is missing`;
  const oldest = Math.min(...outputs.map((file) => statSync(join(root, file)).mtimeMs));
  const inputs = BUILD_INPUTS.filter((input) => existsSync(join(root, input))).map((input) => newestMtime(join(root, input)));
  const newer = inputs.find((input) => input.mtime > oldest);
  return newer === undefined ? undefined : `${relative(root, newer.file)} is newer than dist/`;
}

/**
 * Packing a stale dist/ would test yesterday's package, so it is rebuilt first (and said so);
 * CI builds before testing, so there this is a no-op.
 */
export async function ensureFreshDist(root: string, log: (line: string) => void): Promise<void> {
  if (distStaleness(root) === undefined) return;
  // Several test files need dist/: one builds, the others wait and find it fresh (a build wipes dist/ first).
  await withBuildLock(root, async () => {
    const stale = distStaleness(root);
    if (stale === undefined) return;
    log(`${stale}; running npm run build first`);
    const npm = npmCommand();
    await runProcess(npm.file, [...npm.args, 'run', 'build'], { cwd: root, label: 'npm run build' });
    const still = distStaleness(root);
    if (still !== undefined) throw new Error(`dist/ is still stale after npm run build: ${still}`);
  });
}

/** Runs `work` holding .tmp/build.lock (a folder naming its process; a dead holder's lock is taken over). */
async function withBuildLock(root: string, work: () => Promise<void>): Promise<void> {
  const lock = join(root, '.tmp', 'build.lock');
  mkdirSync(join(root, '.tmp'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!holderAlive(join(lock, 'pid'))) rmSync(lock, { recursive: true, force: true });
      else await sleep(250);
    }
  }
  try {
    await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function holderAlive(pidFile: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8'));
  } catch {
    return true; // the holder has made the folder but not written its pid yet
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
