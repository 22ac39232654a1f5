import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { isInside } from './inside.js';
import { PathOutsideRootError, ReadOnlyToolError } from './errors.js';
import { openedPath } from './opened-path.js';

/** What the caller can use: a regular file, a directory, or either (never a FIFO, socket or device). */
export type OpenKind = 'file' | 'directory' | 'file-or-directory';

/** An open descriptor proven to be inside the root and of the expected kind. The caller closes `handle`. */
export interface VerifiedHandle {
  readonly handle: FileHandle;
  /** The real path of what was opened, as the kernel (or the inode check) reports it. */
  readonly real: string;
  readonly stats: Stats;
}

/**
 * Flags for every open: read only; O_NOFOLLOW so a final component that became a symlink is refused
 * rather than followed; O_NONBLOCK so opening a FIFO returns at once instead of parking a libuv
 * thread until a writer appears (enough parked threads hang every file operation in the process);
 * O_NOCTTY so a terminal device can never become the process's controlling terminal.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/**
 * Opens `target` and then checks what was actually opened: its real path must lie inside
 * `rootReal`, and it must be of `kind` (regular file, directory, or either). Checking after the
 * open closes the race where a directory on the path is swapped for a symlink between a check and
 * a later open by path: whatever the path meant at open time, the descriptor is what gets read.
 * `requested` is the path as the model wrote it, for messages.
 */
export async function openVerified(target: string, rootReal: string, kind: OpenKind, requested: string): Promise<VerifiedHandle> {
  let handle: FileHandle;
  try {
    handle = await open(target, OPEN_FLAGS);
  } catch (error) {
    throw openError(error, requested);
  }
  try {
    const stats = await handle.stat();
    const real = await openedPath(handle, target, stats);
    if (real === undefined) {
      throw new ReadOnlyToolError(`"${requested}" changed while it was being opened and could not be verified; try again.`);
    }
    if (!isInside(rootReal, real)) throw new PathOutsideRootError(requested, 'led outside the project root when it was opened (a symlink was swapped in)');
    if (kind === 'file' && stats.isDirectory()) throw new ReadOnlyToolError(`"${requested}" is a directory; use list_dir or find_files.`);
    if (kind === 'file' && !stats.isFile()) {
      throw new ReadOnlyToolError(`"${requested}" is not a regular file (FIFOs, sockets and devices are never read).`);
    }
    if (kind === 'directory' && !stats.isDirectory()) throw new ReadOnlyToolError(`"${requested}" is not a directory.`);
    if (kind === 'file-or-directory' && !stats.isFile() && !stats.isDirectory()) {
      throw new ReadOnlyToolError(`"${requested}" is neither a regular file nor a directory (FIFOs, sockets and devices are never read).`);
    }
    return { handle, real, stats };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

function openError(error: unknown, requested: string): ReadOnlyToolError {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ELOOP') {
    return new ReadOnlyToolError(`"${requested}" became a symlink while it was being opened; symlinks met during an open are never followed.`, { cause: error });
  }
  if (code === 'ENOENT') return new ReadOnlyToolError(`"${requested}" does not exist inside the project root (ENOENT).`, { cause: error });
  return new ReadOnlyToolError(`"${requested}" cannot be opened (${typeof code === 'string' ? code : String(error)}).`, { cause: error });
}
