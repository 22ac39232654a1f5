import { randomUUID } from 'node:crypto';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { errorMessage } from '../../util/describe.js';
import { RunStoreError } from '../store/run-store-errors.js';
import { syncDirectory, writeNewFileSync } from './sync-write.js';

/**
 * Rewrites `path` whole, as `writeFileAtomicallySync` does, but with the temp file staged in the
 * lease holder's `folder`: the rename is then also the lease check. Once a new holder has renamed
 * that folder away (fenced it), the temp file cannot be created, or if it was, its rename fails
 * with ENOENT, so nothing lands however long this process was paused in between. Resolves false
 * then (nothing was written); any other failure is a `RunStoreError` and the old file stays.
 */
export function rewriteThroughFolder(folder: string, path: string, text: string, fsync: boolean): boolean {
  const temp = join(folder, `.${basename(path)}.${randomUUID()}.tmp`);
  try {
    writeNewFileSync(temp, text, fsync);
    renameSync(temp, path);
  } catch (error) {
    // A temp file that was never created (its folder gone) is not there to remove: force ignores it.
    rmSync(temp, { force: true });
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !existsSync(folder)) return false;
    throw new RunStoreError(`${path} could not be rewritten (${errorMessage(error)}); the previous version is kept.`, { cause: error });
  }
  if (fsync) syncDirectory(dirname(path));
  return true;
}
