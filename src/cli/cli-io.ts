import { inertText } from '../util/inert-text.js';

/** Where the command line writes: injected, so tests read what a user would see. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

// A stream closed by its reader (`| head`) is destroyed and no longer writable: its output is dropped.
export const processIo: CliIo = {
  out: (text) => {
    if (process.stdout.writable) process.stdout.write(`${text}\n`);
  },
  err: (text) => {
    if (process.stderr.writable) process.stderr.write(`${text}\n`);
  },
};

/**
 * `io` whose text can only be shown, never acted on by a terminal. A backstop: stored values are
 * escaped where they are placed (newlines included, so a value cannot forge a line); this keeps
 * the command's own line breaks and catches any control character a message still carries.
 */
export function inertIo(io: CliIo): CliIo {
  return {
    out: (text) => io.out(inertText(text, { keepNewlines: true })),
    err: (text) => io.err(inertText(text, { keepNewlines: true })),
  };
}

/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class CliUsageError extends Error {}
