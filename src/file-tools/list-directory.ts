import type { Dirent } from 'node:fs';
import { opendir } from 'node:fs/promises';
import type { CallBudget } from './call-budget.js';
import { listablePath } from './opened-path.js';
import type { VerifiedHandle } from './verified-open.js';

export interface Listing {
  readonly entries: Dirent[];
  /** False when `max` or the budget stopped the listing before the directory was exhausted. */
  readonly complete: boolean;
}

/**
 * Reads the entries of a verified directory, at most `max` of them, through its descriptor (see
 * `listablePath`), so the names come from the directory that was checked. Entry types come from
 * the directory itself (lstat-like): a symlink is reported as a symlink, never as its target.
 */
export async function listDirectory(directory: VerifiedHandle, max: number, budget: CallBudget): Promise<Listing> {
  const entries: Dirent[] = [];
  const dir = await opendir(await listablePath(directory.handle, directory.real), { bufferSize: 128 });
  try {
    for (;;) {
      if (entries.length % 256 === 0 && !budget.ok()) return { entries, complete: false };
      const entry = await dir.read();
      if (entry === null) return { entries, complete: true };
      if (entries.length === max) return { entries, complete: false };
      entries.push(entry);
    }
  } finally {
    await dir.close().catch(() => undefined);
  }
}
