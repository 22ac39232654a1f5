import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { npmCommand } from './run-process.js';

/** Packages the scratch project takes from this repository besides the package's own dependencies. */
export const TOOLING_PACKAGES = ['typescript', '@types/node', 'reflect-metadata'] as const;

/** What an app on a local model adds to groundswell: the lean install links it from the repository. */
export const APP_PACKAGES = ['@ai-sdk/openai-compatible'] as const;

/**
 * Where a package is installed as seen from the repository root (the same lookup `require` does,
 * without needing the package to export its package.json).
 */
export function packageDir(root: string, name: string): string | undefined {
  const paths = createRequire(join(root, 'package.json')).resolve.paths(name) ?? [];
  return paths.map((dir) => join(dir, name)).find((dir) => existsSync(join(dir, 'package.json')));
}

/** The package's runtime dependencies and peers: what an install would give the scratch project. */
export function runtimePackages(root: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  return [...new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})])].sort();
}

/** The peers package.json marks optional: what npm leaves out unless the app installs them itself. */
export function optionalPeers(root: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { peerDependenciesMeta?: Record<string, { optional?: boolean }> };
  return Object.entries(pkg.peerDependenciesMeta ?? {})
    .filter(([, meta]) => meta.optional === true)
    .map(([name]) => name)
    .sort();
}

function runs(file: string, args: readonly string[]): boolean {
  const result = spawnSync(file, args, { stdio: 'ignore' });
  return result.error === undefined && result.status === 0;
}

/** Why the pack test cannot run here (each reason one line), empty when everything is present. */
export function missingPrerequisites(root: string): string[] {
  const missing: string[] = [];
  const npm = npmCommand();
  if (!runs(npm.file, [...npm.args, '--version'])) missing.push('npm is not runnable');
  if (!runs('tar', ['--version'])) missing.push('tar is not on PATH (it unpacks the tarball)');
  for (const name of [...runtimePackages(root), ...TOOLING_PACKAGES, ...APP_PACKAGES]) {
    if (packageDir(root, name) === undefined) missing.push(`${name} is not installed (run npm ci)`);
  }
  return missing;
}
