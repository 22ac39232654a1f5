import { execFile } from 'node:child_process';

export interface ProcessOutput {
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** A child process that exited non-zero (or could not start); the message carries its output. */
export class ProcessError extends Error {
  constructor(
    readonly label: string,
    readonly output: Omit<ProcessOutput, 'ms'>,
    options: { cause: unknown },
  ) {
    const text = `${output.stdout}\n${output.stderr}`.trim();
    super(`${label} failed: ${String((options.cause as Error | undefined)?.message ?? options.cause)}\n${text}`, options);
    this.name = 'ProcessError';
  }
}

/** Runs a command to completion and resolves with its output; rejects with ProcessError on failure. */
export function runProcess(
  file: string,
  args: readonly string[],
  options: { cwd: string; label: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ProcessOutput> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    // timeout 0 (the default): no limit; a killed child rejects like any other failure.
    const settings = { cwd: options.cwd, env: options.env ?? process.env, maxBuffer: 64 * 1024 * 1024, timeout: options.timeoutMs ?? 0 };
    execFile(file, args, settings, (error, stdout, stderr) => {
      if (error) reject(new ProcessError(options.label, { stdout, stderr }, { cause: error }));
      else resolve({ stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** npm as the running `npm test` invoked it (npm_execpath), else the one on PATH. */
export function npmCommand(): { file: string; args: string[] } {
  const execPath = process.env.npm_execpath;
  if (execPath !== undefined && /\.c?js$/.test(execPath)) return { file: process.execPath, args: [execPath] };
  return { file: 'npm', args: [] };
}
