import { randomUUID } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `text` to `path` through a temp file in the same directory and a rename, so a reader sees
 * the old file or the new one, never half of one. The temp file is removed if anything fails.
 * `temp` names the temp file when the caller needs to recognise its own leftovers later; `mode`
 * is the new file's (the rename keeps it), as for `writeFile`.
 */
export async function writeFileAtomically(path: string, text: string, temp = defaultTemp(path), mode = 0o666): Promise<void> {
  try {
    // `wx`: a temp path that exists already is somebody else's write, never ours to overwrite.
    await writeFile(temp, text, { encoding: 'utf8', flag: 'wx', mode });
    await rename(temp, path);
  } catch (error) {
    // EEXIST: the temp path was not ours, so neither is the file there to remove.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

function defaultTemp(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomUUID()}.tmp`);
}
