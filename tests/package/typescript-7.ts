import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { npmCommand, ProcessError, runProcess, type ProcessOutput } from './run-process.js';

/** Exact: a new TypeScript release is checked when someone bumps this, not whenever npm publishes it. */
export const TYPESCRIPT_7 = '7.0.2';

// Hang guards, generous (seconds when the machine is idle): a stalled download or launcher must end
// the check. The compiles have none, like the pack test's other compiles: the test timeout bounds them.
const INSTALL_TIMEOUT_MS = 180_000;
const VERSION_TIMEOUT_MS = 120_000;

/** The npm registry did not answer: the one reason the TypeScript 7 check may skip (locally). */
export class RegistryUnreachableError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'RegistryUnreachableError';
  }
}

export interface TypeScript7 {
  /** The launcher `bin/tsc`, a Node script that runs the native compiler of this platform. */
  readonly tsc: string;
  /** What `tsc --version` printed, e.g. "Version 7.0.2". */
  readonly version: string;
  readonly installMs: number;
  readonly cached: boolean;
}

function launcher(dir: string): string {
  return join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
}

/** `tsc --version` of an install, or undefined when it is missing or broken. */
async function reportedVersion(dir: string): Promise<string | undefined> {
  if (!existsSync(launcher(dir))) return undefined;
  try {
    const output = await runProcess(process.execPath, [launcher(dir), '--version'], { cwd: dir, label: 'tsc --version', timeoutMs: VERSION_TIMEOUT_MS });
    return output.stdout.trim();
  } catch {
    return undefined;
  }
}

/** Fails fast (no retries) when the registry cannot be reached, so an offline run says so at once. */
async function pingRegistry(cwd: string): Promise<void> {
  const npm = npmCommand();
  try {
    await runProcess(npm.file, [...npm.args, 'ping', '--fetch-retries=0', '--fetch-timeout=20000'], { cwd, label: 'npm ping', timeoutMs: 60_000 });
  } catch (error) {
    const stderr = error instanceof ProcessError ? error.output.stderr : String(error);
    const reason = /npm error (FetchError: .*)/.exec(stderr)?.[1] ?? stderr.trim().split('\n').at(-1) ?? '';
    throw new RegistryUnreachableError(`npm ping failed, so typescript@${TYPESCRIPT_7} cannot be installed: ${reason}`, { cause: error });
  }
}

/**
 * `typescript@TYPESCRIPT_7` from the npm registry, installed once into `<root>/.tmp` and reused by
 * later runs (a version check, no network). A fresh install goes to a private folder first and is
 * renamed into place, so two test runs in one working tree never see a half-installed compiler.
 */
export async function installTypeScript7(root: string): Promise<TypeScript7> {
  const expected = `Version ${TYPESCRIPT_7}`;
  const cache = join(root, '.tmp', `typescript-${TYPESCRIPT_7}`);
  const started = performance.now();
  const cachedVersion = await reportedVersion(cache);
  if (cachedVersion === expected) return { tsc: launcher(cache), version: cachedVersion, installMs: performance.now() - started, cached: true };

  mkdirSync(join(root, '.tmp'), { recursive: true });
  await pingRegistry(root);
  const fresh = mkdtempSync(`${cache}-`);
  try {
    // Its own package.json, so npm installs here and never into the repository above it.
    writeFileSync(join(fresh, 'package.json'), '{ "name": "typescript-7-check", "private": true }\n');
    const npm = npmCommand();
    await runProcess(npm.file, [...npm.args, 'install', '--no-audit', '--no-fund', '--save-exact', `typescript@${TYPESCRIPT_7}`], {
      cwd: fresh,
      label: `npm install typescript@${TYPESCRIPT_7}`,
      timeoutMs: INSTALL_TIMEOUT_MS,
    });
    const version = await reportedVersion(fresh);
    if (version !== expected) throw new Error(`typescript@${TYPESCRIPT_7} installed, but its tsc --version printed ${version ?? 'nothing'}`);
    rmSync(cache, { recursive: true, force: true });
    try {
      renameSync(fresh, cache);
    } catch {
      // Another run put its install in place first; it passed the same version check.
    }
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
  const version = await reportedVersion(cache);
  if (version !== expected) throw new Error(`${cache}: tsc --version printed ${version ?? 'nothing'}, expected ${expected}`);
  return { tsc: launcher(cache), version, installMs: performance.now() - started, cached: false };
}

/**
 * Type-checks the project in `dir` (its tsconfig.json, `noEmit`) with TypeScript 7 and returns the
 * files in the program; rejects with the compiler's output when it exits non-zero or prints an error.
 */
export async function typeCheckWithTypeScript7(tsc: string, dir: string, label: string): Promise<{ files: string[]; ms: number }> {
  let output: ProcessOutput;
  try {
    output = await runProcess(process.execPath, [tsc, '-p', dir, '--listFiles'], { cwd: dir, label });
  } catch (error) {
    // The diagnostics without the hundreds of file names --listFiles prints around them.
    if (!(error instanceof ProcessError)) throw error;
    const reported = [...diagnosticLines(error.output.stdout), error.output.stderr.trim()].filter((line) => line !== '');
    throw new Error(`${label} failed (${error.cause instanceof Error ? error.cause.message.split('\n')[0] : 'no exit code'}):\n${reported.join('\n')}`, { cause: error });
  }
  const diagnostics = diagnosticLines(output.stdout);
  if (diagnostics.length > 0 || output.stderr.trim() !== '') {
    throw new Error(`${label} exited 0 but reported:\n${[...diagnostics, output.stderr.trim()].join('\n')}`);
  }
  return { files: nonEmptyLines(output.stdout), ms: output.ms };
}

function nonEmptyLines(text: string): string[] {
  return text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
}

/** --listFiles prints absolute paths only; any other line (or an error code) is a diagnostic. */
function diagnosticLines(stdout: string): string[] {
  return nonEmptyLines(stdout).filter((line) => !isAbsolute(line) || /error TS\d+/.test(line));
}
