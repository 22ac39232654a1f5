import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomically } from '../../src/util/atomic-write.js';

// The one temp-then-rename writer behind the file cache, the plan drafter and goal sign-off.
describe('writeFileAtomically', () => {
  it('replaces the file whole and leaves no temp file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-atomic-'));
    const path = join(dir, 'plan.md');
    writeFileSync(path, 'old');
    await writeFileAtomically(path, 'new text');
    expect(readFileSync(path, 'utf8')).toBe('new text');
    expect(readdirSync(dir)).toEqual(['plan.md']);
  });

  it('a failed rename throws and removes its temp file, keeping what was there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-atomic-'));
    // A non-empty directory where the file should go: rename over it fails.
    const path = join(dir, 'plan.md');
    mkdirSync(path);
    writeFileSync(join(path, 'keep'), 'x');
    await expect(writeFileAtomically(path, 'new text')).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['plan.md']);
    expect(readdirSync(path)).toEqual(['keep']);
  });

  it('never overwrites an existing temp path it was given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-atomic-'));
    const temp = join(dir, 'someone-elses.tmp');
    writeFileSync(temp, 'theirs');
    await expect(writeFileAtomically(join(dir, 'out.json'), 'ours', temp)).rejects.toThrow(/EEXIST/);
    expect(readFileSync(temp, 'utf8')).toBe('theirs');
  });
});
