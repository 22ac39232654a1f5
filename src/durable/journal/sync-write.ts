import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { errorMessage } from '../../util/describe.js';
import { PRIVATE_FILE_MODE } from '../../util/private-modes.js';
import { RunStoreError } from '../store/run-store-errors.js';

/**
 * Writes `text` to `path` through a temp file and a rename (a reader sees the old file or the
 * new one), synchronously so two writes from this process never interleave. Every byte is in the
 * temp file before the rename: a nearly full disk answers one write(2) with a short count and no
 * error, and renaming that would replace a good file with a cut one. `fsync` flushes the temp
 * file before the rename and the folder after it, so a power loss leaves one of the two versions.
 * A failure is a `RunStoreError` naming `path`; the old file stays and the temp file is removed.
 * The file is private (`PRIVATE_FILE_MODE`); a symbolic link at `path` is replaced, not followed.
 */
export function writeFileAtomicallySync(path: string, text: string, fsync: boolean): void {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${randomUUID()}.tmp`);
  try {
    writeNewFileSync(temp, text, fsync);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new RunStoreError(`${path} could not be rewritten (${errorMessage(error)}); the previous version is kept.`, { cause: error });
  }
  // The rename is an entry of the folder: unflushed, a power loss can bring the old file back.
  if (fsync) syncDirectory(dir);
}

/** Makes a rename or a new file in `dir` survive a power loss (a no-op where directories cannot be opened). */
export function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Windows cannot fsync a directory; its renames are durable by other means.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes all of `buf` at the descriptor's position: one write(2) in practice, a loop for the rare
 * short write. A write that fails part-way throws, leaving what the caller must undo.
 */
export function writeAllSync(fd: number, buf: Buffer): void {
  let written = 0;
  while (written < buf.length) {
    const n = writeSync(fd, buf, written, buf.length - written);
    if (n <= 0) throw new Error(`write(2) wrote nothing with ${buf.length - written} bytes left`);
    written += n;
  }
}

/**
 * Creates `path` (which must not exist) holding all of `text`; `fsync` flushes it before the
 * caller publishes it (a link or a rename), so a power loss cannot leave an empty record behind.
 */
export function writeNewFileSync(path: string, text: string, fsync: boolean): void {
  const fd = openSync(path, 'wx', PRIVATE_FILE_MODE);
  try {
    writeAllSync(fd, Buffer.from(text, 'utf8'));
    if (fsync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
