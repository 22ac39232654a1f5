/** Where the command line writes: injected, so tests read what a user would see. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class CliUsageError extends Error {}
