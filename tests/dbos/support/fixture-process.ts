import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** Bundles a fixture once (under the repository, so its packages resolve); returns the file and its cleanup. */
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
    alias: {
      groundswell: join(ROOT, 'src/index.ts'),
      'groundswell/dbos': join(ROOT, 'src/dbos/index.ts'),
      'groundswell/testing': join(ROOT, 'src/testing/index.ts'),
    },
    logLevel: 'error',
  });
  return { file, remove: () => rmSync(file, { force: true }) };
}

export interface FixtureProcess {
  readonly child: ChildProcess;
  /** The first `REPORT <json>` line the process prints. */
  readonly report: Promise<unknown>;
  /** Resolves when the process exits: its code or signal, and what it wrote to stderr. */
  readonly exited: Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>;
}

/** Starts a bundled fixture with its settings in GS_DBOS_FIXTURE. */
export function startFixture(file: string, settings: Record<string, unknown>): FixtureProcess {
  const child = spawn(process.execPath, [file], {
    env: { ...process.env, GS_DBOS_FIXTURE: JSON.stringify(settings) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  const report = new Promise<unknown>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const line = /^REPORT (.*)$/m.exec(stdout);
      if (line !== null) resolve(JSON.parse(line[1] as string));
    });
    void exited.then(({ code, signal }) => reject(new Error(`fixture exited (${code ?? signal}) before reporting:\n${stderr.slice(-4_000)}`)));
  });
  report.catch(() => undefined);
  return { child, report, exited };
}
