import { execFileSync } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PathOutsideRootError, ReadOnlyToolError } from '../../src/file-tools/errors.js';
import { openVerified } from '../../src/file-tools/verified-open.js';
import { makeFixture, SECRET, type Fixture } from './fixture.js';

let fixture: Fixture;
let rootReal: string;
beforeEach(async () => {
  fixture = await makeFixture();
  rootReal = await realpath(fixture.root);
});
afterEach(async () => {
  await fixture.cleanup();
});

describe('openVerified', () => {
  it('opens a regular file inside the root and reports its real path', async () => {
    const opened = await openVerified(path.join(rootReal, 'src', 'alpha.ts'), rootReal, 'file', 'src/alpha.ts');
    try {
      expect(opened.real).toBe(path.join(rootReal, 'src', 'alpha.ts'));
      expect(opened.stats.isFile()).toBe(true);
      expect((await opened.handle.readFile('utf8')).startsWith('export const alpha')).toBe(true);
    } finally {
      await opened.handle.close();
    }
  });

  it('refuses what an open reached through a directory symlink leading outside (the state a swap race leaves)', async () => {
    const attempt = openVerified(path.join(rootReal, 'linkdir-out', 'secret.txt'), rootReal, 'file', 'linkdir-out/secret.txt');
    await expect(attempt).rejects.toThrow(PathOutsideRootError);
    await expect(openVerified(path.join(rootReal, 'linkdir-out', 'secret.txt'), rootReal, 'file', 'x')).rejects.toThrow(
      /led outside the project root when it was opened/,
    );
    await expect(openVerified(path.join(rootReal, 'linkdir-out'), rootReal, 'directory', 'linkdir-out')).rejects.not.toThrow(SECRET);
  });

  it('never follows a final symlink, even one that stays inside', async () => {
    await expect(openVerified(path.join(rootReal, 'link-inside'), rootReal, 'file', 'link-inside')).rejects.toThrow(
      '"link-inside" became a symlink while it was being opened; symlinks met during an open are never followed.',
    );
    await expect(openVerified(path.join(rootReal, 'link-out'), rootReal, 'file', 'link-out')).rejects.toThrow(ReadOnlyToolError);
  });

  it('checks the kind on the descriptor: directories, files, FIFOs', async () => {
    execFileSync('mkfifo', [path.join(fixture.root, 'pipe')]);
    await expect(openVerified(path.join(rootReal, 'src'), rootReal, 'file', 'src')).rejects.toThrow('"src" is a directory; use list_dir or find_files.');
    await expect(openVerified(path.join(rootReal, 'notes.md'), rootReal, 'directory', 'notes.md')).rejects.toThrow('"notes.md" is not a directory.');
    await expect(openVerified(path.join(rootReal, 'pipe'), rootReal, 'file', 'pipe')).rejects.toThrow(/"pipe" is not a regular file/);
    await expect(openVerified(path.join(rootReal, 'pipe'), rootReal, 'file-or-directory', 'pipe')).rejects.toThrow(/neither a regular file nor a directory/);
    const directory = await openVerified(path.join(rootReal, 'src'), rootReal, 'file-or-directory', 'src');
    await directory.handle.close();
    expect(directory.stats.isDirectory()).toBe(true);
  });

  it('reports a missing file as a tool error', async () => {
    await expect(openVerified(path.join(rootReal, 'nope'), rootReal, 'file', 'nope')).rejects.toThrow('"nope" does not exist inside the project root (ENOENT).');
  });
});
