import { spawn, type ChildProcess } from 'node:child_process';

export interface FixtureExit {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

export interface FixtureProcess {
  readonly child: ChildProcess;
  /** The first `REPORT <json>` line the process prints. */
  readonly report: Promise<unknown>;
  /** Resolves when the process exits: its code or signal, and what it wrote to stderr. */
  readonly exited: Promise<FixtureExit>;
  /** What the process has shown so far, for progress checks and failure messages: output size, last line, exit. */
  progress(): string;
}

/** Starts a bundled fixture with its settings in GS_DBOS_FIXTURE. */
export function startFixture(file: string, settings: Record<string, unknown>): FixtureProcess {
  const child = spawn(process.execPath, [file], {
    env: { ...process.env, GS_DBOS_FIXTURE: JSON.stringify(settings) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let lastLine = '';
  let ended: string | undefined;
  const noteLines = (text: string): void => {
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    if (lines.length > 0) lastLine = (lines[lines.length - 1] as string).slice(0, 120);
  };
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    stderr += text;
    noteLines(text);
  });
  const exited = new Promise<FixtureExit>((resolve) =>
    child.on('exit', (code, signal) => {
      ended = `exited ${code ?? signal}`;
      resolve({ code, signal, stdout, stderr });
    }),
  );
  const report = new Promise<unknown>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      stdout += text;
      noteLines(text);
      const line = /^REPORT (.*)$/m.exec(stdout);
      if (line !== null) resolve(JSON.parse(line[1] as string));
    });
    void exited.then(({ code, signal }) => reject(new Error(`fixture exited (${code ?? signal}) before reporting:\n${stderr.slice(-4_000)}`)));
  });
  report.catch(() => undefined);
  return {
    child,
    report,
    exited,
    progress: () => `${ended ?? 'running'}, ${stdout.length + stderr.length} bytes out, last: ${lastLine === '' ? '-' : JSON.stringify(lastLine)}`,
  };
}
