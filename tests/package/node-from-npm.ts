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
