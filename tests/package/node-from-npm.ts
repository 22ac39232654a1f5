import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { npmCommand, runProcess } from './run-process.js';

/**
 * The lowest Node version an `engines.node` range admits. Only `>=X[.Y[.Z]]` is understood: a
 * range this cannot read fails loudly rather than checking some other version.
 */
export function lowestNodeVersion(range: string): string {
  const match = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (match === null) throw new Error(`engines.node "${range}" is not of the form ">=X[.Y[.Z]]"; teach lowestNodeVersion to read it`);
  return [match[1], match[2] ?? '0', match[3] ?? '0'].join('.');
}

/**
 * Installs the official Node binary of `version` from the npm package `node-<platform>-<arch>`
 * (the registry is the one network source CI has) under `dir`, checks it reports that version,
 * and returns its path.
 */
export async function installNode(version: string, dir: string): Promise<string> {
  const name = `node-${process.platform}-${process.arch}`;
  const npm = npmCommand();
  await runProcess(npm.file, [...npm.args, 'install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir, `${name}@${version}`], {
    cwd: dir,
    label: `npm install ${name}@${version}`,
    timeoutMs: 120_000,
  });
  const binary = join(dir, 'node_modules', name, 'bin', 'node');
  if (!existsSync(binary)) throw new Error(`${name}@${version} installed no ${binary}`);
  const reported = (await runProcess(binary, ['--version'], { cwd: dir, label: `${binary} --version` })).stdout.trim();
  if (reported !== `v${version}`) throw new Error(`${binary} reports ${reported}, expected v${version}`);
  return binary;
}

/**
 * The newest published version of Node `major` in the npm package `node-<platform>-<arch>`, so CI
 * follows each supported line's latest release without anyone bumping a pin.
 */
export async function latestNodeVersion(major: number): Promise<string> {
  const name = `node-${process.platform}-${process.arch}`;
  const npm = npmCommand();
  const output = await runProcess(npm.file, [...npm.args, 'view', `${name}@${major}`, 'version', '--json'], {
    cwd: process.cwd(),
    label: `npm view ${name}@${major} version`,
    timeoutMs: 60_000,
  });
  // One match prints a string, several an array.
  const parsed = JSON.parse(output.stdout) as unknown;
  const versions = (Array.isArray(parsed) ? parsed : [parsed]).filter((v): v is string => typeof v === 'string' && /^\d+\.\d+\.\d+$/.test(v));
  const parts = (v: string): number[] => v.split('.').map(Number);
  const newest = versions.sort((a, b) => {
    const [x, y] = [parts(a), parts(b)];
    return (x[0]! - y[0]!) || (x[1]! - y[1]!) || (x[2]! - y[2]!);
  }).at(-1);
  if (newest === undefined || !newest.startsWith(`${major}.`)) throw new Error(`npm lists no ${name} release of Node ${major}:\n${output.stdout}`);
  return newest;
}
