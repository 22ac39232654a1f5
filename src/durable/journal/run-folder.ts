import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { symlinkRefused } from './no-follow.js';

/**
 * Whether `dir` (a run's folder) exists as a folder; a symbolic link there is refused, so no read
 * or write goes through it. The store's own root may be a link: only what is inside is checked.
 */
export function isRunFolder(dir: string): boolean {
  try {
    const stat = lstatSync(dir);
    if (stat.isSymbolicLink()) throw symlinkRefused(dir);
    return stat.isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}

/**
 * `isRunFolder`, and a symbolic link among the folder's entries (run.json, a journal, the lease...)
 * is refused too: one directory read covers every file the store may open, including ones opened
 * by code that cannot ask for `O_NOFOLLOW` (Windows).
 */
export function checkRunFolder(dir: string): boolean {
  if (!isRunFolder(dir)) return false;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isSymbolicLink()) throw symlinkRefused(join(dir, entry.name));
  }
  return true;
}
