import { closeSync, constants, openSync, readFileSync } from 'node:fs';
import { RunStoreCorruptError } from '../store/run-store-errors.js';

/** `O_NOFOLLOW` where the platform has it (not on Windows, where it is undefined). */
const NO_FOLLOW = (constants.O_NOFOLLOW as number | undefined) ?? 0;

/** Flags of `'a+'` (read, append, create) that refuse a symbolic link as the last path part. */
export const APPEND_NO_FOLLOW = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW;

/** The refusal of a symbolic link where the store keeps a run folder or file. */
export function symlinkRefused(path: string, options?: { cause?: unknown }): RunStoreCorruptError {
  return new RunStoreCorruptError(
    path,
    'is a symbolic link; the run store does not follow links inside its folder (writes would land elsewhere). Replace it with the real folder or file.',
    options,
  );
}

/** Whether an open error means the last path part was a symbolic link refused by `O_NOFOLLOW`. */
function isSymlinkRefusal(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  // Linux and macOS say ELOOP; FreeBSD says EMLINK.
  return code === 'ELOOP' || code === 'EMLINK';
}

/** Reads a whole file without following a symbolic link (refused with `RunStoreCorruptError`). */
export function readFileNoFollowSync(path: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NO_FOLLOW);
  } catch (error) {
    if (isSymlinkRefusal(error)) throw symlinkRefused(path, { cause: error });
    throw error;
  }
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
