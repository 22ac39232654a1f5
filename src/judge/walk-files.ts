import { readdir } from 'node:fs/promises';
import path from 'node:path';

/** Directories that are tool state or vendored code, not project evidence; searching them only adds noise and time. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['.git', 'node_modules']);

export interface WalkLimits {
  /** Stop after this many directory entries, so a huge tree cannot stall the judge. */
  readonly maxEntries: number;
  readonly signal?: AbortSignal | undefined;
}

export interface WalkResult {
  readonly files: string[];
  /** True when `maxEntries` stopped the walk before the tree was exhausted. */
  readonly truncated: boolean;
}

/**
 * Lists regular files under `directory` (a real path already checked to be inside the root), sorted
 * by path. Symlinks are never followed: a link can point outside the root or form a cycle, and
 * the model can still open a link by path, where the root check applies.
 */
export async function walkFiles(directory: string, limits: WalkLimits): Promise<WalkResult> {
  const files: string[] = [];
  const pending: string[] = [directory];
  let seen = 0;
  while (pending.length > 0) {
    limits.signal?.throwIfAborted();
    const current = pending.shift();
    if (current === undefined) break;
    const entries = await readdir(current, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirectories: string[] = [];
    for (const entry of entries) {
      seen += 1;
      if (seen > limits.maxEntries) return { files, truncated: true };
      const full = path.join(current, entry.name);
      if (entry.isDirectory() && !SKIPPED_DIRECTORIES.has(entry.name)) subdirectories.push(full);
      else if (entry.isFile()) files.push(full);
    }
    // Depth-first by directory keeps a directory's files together in the output.
    pending.unshift(...subdirectories);
  }
  // One path order for every listing, so results are stable whatever the directory layout.
  files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { files, truncated: false };
}
