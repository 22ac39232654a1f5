import { link, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { tempPath } from './temp-files.js';

/** What happened to the file: removed, already gone, or kept because it changed since it was read. */
export type RemoveOutcome = 'removed' | 'gone' | 'changed';

/**
 * Compare-and-delete for one entry file: removes `dir/name` only if it still holds `seen`, the
 * text that was read and judged expired or damaged. Deleting by name would remove a fresh entry
 * another store or process wrote in between. The file is first moved aside (an atomic rename
 * takes whatever is there now), then compared; a different (fresh) entry is linked back unless
 * an even newer one has arrived meanwhile. Readers in other processes may see a miss during the
 * few file operations this takes, never a lost entry.
 */
export async function removeIfUnchanged(dir: string, name: string, seen: string): Promise<RemoveOutcome> {
  const path = join(dir, name);
  const aside = tempPath(dir, name, 'evict');
  try {
    await rename(path, aside);
  } catch (error) {
    return isCode(error, 'ENOENT') ? 'gone' : 'changed';
  }
  let current: string | undefined;
  try {
    current = await readFile(aside, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === seen) {
    await rm(aside, { force: true }).catch(() => undefined);
    return 'removed';
  }
  await putBack(aside, path);
  return 'changed';
}

/** Moves `aside` back to `path` without overwriting a newer entry written meanwhile. */
async function putBack(aside: string, path: string): Promise<void> {
  try {
    // link() fails with EEXIST instead of replacing: a newer entry wins over the one we took.
    await link(aside, path);
  } catch (error) {
    if (!isCode(error, 'EEXIST')) {
      // No hard links on this file system: rename back (a newer write in this instant may be replaced by ours, which is fresh too).
      await rename(aside, path).catch(() => undefined);
      return;
    }
  }
  await rm(aside, { force: true }).catch(() => undefined);
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
