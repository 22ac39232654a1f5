import { RunStoreError } from '../store/run-store-errors.js';

/** SQLSTATE classes of errors the values sent caused: data exceptions and program limits. */
const INPUT_CLASSES = ['22', '54'];
const INDEX_ROW_SIZE = /index row (size|requires)/i;

/** A key or name as a message shows it: visible control characters, cut when long. */
export function quoteName(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
}

/**
 * A `RunStoreError` for a driver error the input caused (`what` names it and its run), or
 * undefined for any other error.
 */
export function refusedInput(error: unknown, what: string): RunStoreError | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !INPUT_CLASSES.includes(code.slice(0, 2))) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  const hint = INDEX_ROW_SIZE.test(message) ? ': keys and names must fit a PostgreSQL index entry (about 2,700 bytes after compression), so use a shorter one' : '';
  return new RunStoreError(`${what} cannot be stored in PostgreSQL (${message})${hint}.`, { cause: error });
}
