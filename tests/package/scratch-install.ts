import { mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageDir, runtimePackages, TOOLING_PACKAGES } from './pack-prerequisites.js';
import { npmCommand, runProcess } from './run-process.js';

export interface ScratchInstall {
  /** The installed package: `<dir>/node_modules/groundswell`. */
  readonly packageDir: string;
  /** The tarball `npm pack` wrote, for installing it again elsewhere. */
  readonly tarball: string;
  /** Paths inside the tarball, as npm listed them. */
  readonly packedFiles: readonly string[];
  readonly packMs: number;
}

/** What a scratch install links besides the package's dependencies, peers and the test's tooling. */
export interface LinkOptions {
  /** Dependencies or peers left out, as a user who did not install them would have it. */
  readonly without?: readonly string[];
  /** The repository's dev dependencies the project uses as an app would (an AI SDK provider). */
  readonly extra?: readonly string[];
}

/**
 * `npm pack`s the repository and installs the tarball into `<dir>/node_modules` the way npm would
 * lay it out, without the network: the tarball is unpacked as the package, and its dependencies,
 * peers and the test's tooling are links to this repository's installed copies. Only declared
 * dependencies are linked, so an import of an undeclared package still fails as it would for users.
 */
export async function packAndInstall(root: string, dir: string, options: LinkOptions = {}): Promise<ScratchInstall> {
  const npm = npmCommand();
  const packed = await runProcess(npm.file, [...npm.args, 'pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    cwd: root,
    label: 'npm pack',
  });
  const [entry] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  if (entry === undefined) throw new Error(`npm pack printed no package:\n${packed.stdout}`);
  const tarball = join(dir, entry.filename);
  const installed = await installTarball(root, tarball, dir, options);
  return { packageDir: installed, tarball, packedFiles: entry.files.map((file) => file.path), packMs: packed.ms };
}

/** Installs a packed tarball into `<dir>/node_modules` as packAndInstall does; returns the package's folder. */
export async function installTarball(root: string, tarball: string, dir: string, options: LinkOptions = {}): Promise<string> {
  const modules = join(dir, 'node_modules');
  const installed = join(modules, 'groundswell');
  mkdirSync(installed, { recursive: true });
  await runProcess('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1'], { cwd: dir, label: 'tar' });

  const without = new Set(options.without ?? []);
  const linked = [...runtimePackages(root), ...TOOLING_PACKAGES, ...(options.extra ?? [])].filter((name) => !without.has(name));
  for (const name of linked) {
    const target = packageDir(root, name);
    if (target === undefined) throw new Error(`${name} is not installed in the repository`);
    const link = join(modules, name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link, 'dir');
  }
  return installed;
}
