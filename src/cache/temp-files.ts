import { randomUUID } from 'node:crypto';
import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Temp files of entry or index file `<name>`: `<name>.<unique>.tmp`. They never match an entry name. */
const TEMP_FILE = /^[\w-]+-[0-9a-f]{64}\.(?:json|idx)\.[\w.-]+\.tmp$/;

/** A fresh temp path for entry (or index) file `name` (unique per call, so concurrent writers never share one). */
export function tempPath(dir: string, name: string, purpose = ''): string {
  return join(dir, `${name}.${randomUUID()}${purpose === '' ? '' : `.${purpose}`}.tmp`);
}

/**
 * Removes temp files a killed writer left behind: only the store's own (by name) and only those
 * not modified for `olderThanMs` of real time, so a writer in another process that is still
 * between write and rename keeps its file. Best effort: what cannot be removed stays.
 * Returns how many were removed.
 */
export function removeStaleTempFiles(dir: string, olderThanMs: number, now = Date.now()): number {
  let removed = 0;
  for (const name of readdirSync(dir)) {
    if (!TEMP_FILE.test(name)) continue;
    const path = join(dir, name);
    try {
      const stats = statSync(path);
      if (!stats.isFile() || now - stats.mtimeMs < olderThanMs) continue;
      unlinkSync(path);
      removed++;
    } catch {
      // Gone already (another process cleaned it) or not ours to remove.
    }
  }
  return removed;
}
