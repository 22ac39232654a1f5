import { spawn, type ChildProcess } from 'node:child_process';

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
