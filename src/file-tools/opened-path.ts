import type { Stats } from 'node:fs';
import { access, readlink, realpath, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

let procAvailable: Promise<boolean> | undefined;

/** True where the kernel names open descriptors under /proc/self/fd (Linux); probed once. */
function hasProcFd(): Promise<boolean> {
  procAvailable ??= access('/proc/self/fd').then(
    () => true,
    () => false,
  );
  return procAvailable;
}

/**
 * The real path of what `handle` refers to, or undefined when it cannot be established.
 *
 * On Linux the kernel reports it: `/proc/self/fd/<fd>` is a link to the opened file itself, so a
 * path swapped after the open cannot change the answer. Elsewhere (macOS has no /proc) the path is
 * resolved with `realpath` and accepted only when `stat` of it is the very inode the descriptor
 * holds (same dev and ino): a swap between the open and this check makes the inodes differ and is
 * refused. That fallback trusts the inode, not the path, so it is as strong for file contents but
 * can refuse a file that was legitimately renamed in the meantime.
 */
export async function openedPath(handle: FileHandle, openedAs: string, opened: Stats): Promise<string | undefined> {
  if (await hasProcFd()) {
    const link = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    // A file unlinked after the open is shown as "<path> (deleted)"; its path no longer names it, so refuse.
    if (link !== undefined && link.endsWith(' (deleted)') && (await handle.stat()).nlink === 0) return undefined;
    if (link !== undefined) return link;
    // /proc is mounted but will not name this descriptor (some sandboxes): the inode check still holds.
  }
  try {
    const resolved = await realpath(openedAs);
    const now = await stat(resolved);
    return now.dev === opened.dev && now.ino === opened.ino ? resolved : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A path that names the directory `handle` holds, for listing it. With /proc this is the
 * descriptor's own entry, so the listing is of the verified directory whatever happens to its path
 * afterwards. Without /proc (macOS) Node cannot list a directory by descriptor, so the verified real
 * path is used; a swap after the check could then show names from elsewhere, never file contents,
 * because every file is opened and verified on its own before it is read.
 */
export async function listablePath(handle: FileHandle, verifiedReal: string): Promise<string> {
  return (await hasProcFd()) ? `/proc/self/fd/${handle.fd}` : verifiedReal;
}
