import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CallBudget } from './call-budget.js';
import { listDirectory } from './list-directory.js';
import { openVerified, type VerifiedHandle } from './verified-open.js';

/** Directories that are tool state or vendored code, not project evidence; searching them only adds noise and time. */
const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['.git', 'node_modules']);

export interface WalkLimits {
  /** The real project root: every directory entered is verified to be inside it. */
  readonly rootReal: string;
  /** Stop after this many directory entries, so a huge tree cannot stall the judge. */
  readonly maxEntries: number;
  readonly budget: CallBudget;
}

export interface WalkResult {
  /** Real paths of the regular files found, sorted. Each must still be opened with `openVerified` to be read. */
  readonly files: string[];
  /** True when `maxEntries` stopped the walk before the tree was exhausted. */
  readonly truncated: boolean;
}

/**
 * Lists regular files under the verified directory `start` (which it closes). Each directory is
 * opened with the same verified open as a file and listed through its descriptor; one whose real
 * path is not the expected one (it was swapped while walking) is skipped. Only entries the
 * directory itself reports as regular files or directories are kept: symlinks are never followed
 * (they can leave the root or form cycles; the model can still name one, where the root check
 * applies), and FIFOs, sockets and devices are never listed, so nothing ever opens them.
 */
export async function walkFiles(start: VerifiedHandle, limits: WalkLimits): Promise<WalkResult> {
  const files: string[] = [];
  const pending: Array<VerifiedHandle | string> = [start];
  let seen = 0;
  try {
    while (pending.length > 0 && limits.budget.ok()) {
      const next = pending.shift();
      if (next === undefined) break;
      const directory = typeof next === 'string' ? await enter(next, limits.rootReal) : next;
      if (directory === undefined) continue;
      let listing;
      try {
        listing = await listDirectory(directory, limits.maxEntries - seen + 1, limits.budget);
      } catch {
        continue; // unreadable or vanished meanwhile: nothing to search there
      } finally {
        await directory.handle.close().catch(() => undefined);
      }
      listing.entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const subdirectories: string[] = [];
      for (const entry of listing.entries) {
        seen += 1;
        if (seen > limits.maxEntries) return { files: sorted(files), truncated: true };
        const full = path.join(directory.real, entry.name);
        if (entry.isDirectory() && !SKIPPED_DIRECTORIES.has(entry.name)) subdirectories.push(full);
        else if (entry.isFile()) files.push(full);
      }
      // Depth-first by directory keeps a directory's files together in the output.
      pending.unshift(...subdirectories);
      // Sorting and scanning a large directory is synchronous work; let the event loop in between.
      await nextTurn();
    }
  } finally {
    // Only `start` can still be open here (when the budget ran out before it was listed).
    for (const item of pending) if (typeof item !== 'string') await item.handle.close().catch(() => undefined);
  }
  return { files: sorted(files), truncated: false };
}

async function enter(directory: string, rootReal: string): Promise<VerifiedHandle | undefined> {
  try {
    const opened = await openVerified(directory, rootReal, 'directory', directory);
    if (opened.real === directory) return opened;
    await opened.handle.close();
  } catch {
    // Gone, swapped for a symlink, or moved outside since it was listed: skip it.
  }
  return undefined;
}

/** One path order for every listing, so results are stable whatever the directory layout. */
function sorted(files: string[]): string[] {
  return files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
