import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from 'groundswell';
import type { ReadOnlyToolsOptions } from 'groundswell/plans';
import { readOnlyTools } from '../../src/file-tools/read-only-tools.js';
import { PathOutsideRootError, ReadOnlyToolError } from '../../src/file-tools/errors.js';
import { makeFixture, run, SECRET, type Fixture } from './fixture.js';

let fixture: Fixture;
beforeEach(async () => {
  fixture = await makeFixture();
});
afterEach(async () => {
  await fixture.cleanup();
});

describe('the toolset', () => {
  it('is exactly read_file, grep, find_files and list_dir, all effect read, with no write or exec tool', () => {
    const tools = readOnlyTools(fixture.root);
    expect(tools.map((tool) => tool.name)).toEqual(['read_file', 'grep', 'find_files', 'list_dir']);
    expect(tools.every((tool) => tool.effect === 'read')).toBe(true);
  });

  it('refuses a maxOutputChars that cannot hold a useful result', () => {
    expect(() => readOnlyTools(fixture.root, { maxOutputChars: 10 })).toThrow(UsageError);
    expect(() => readOnlyTools(fixture.root, { maxOutputChars: 1.5e3 + 0.5 })).toThrow(/maxOutputChars/);
  });

  it('refuses an empty or non-string root instead of quietly using the current directory', () => {
    expect(() => readOnlyTools('')).toThrow(UsageError);
    expect(() => readOnlyTools('')).toThrow('readOnlyTools: root must be a non-empty string naming the project directory, got "".');
    expect(() => readOnlyTools('   ')).toThrow(/root must be a non-empty string/);
    expect(() => readOnlyTools(undefined as unknown as string)).toThrow('readOnlyTools: root must be a non-empty string naming the project directory, got undefined.');
    expect(() => readOnlyTools(42 as unknown as string)).toThrow(/root must be a non-empty string .* got number/);
  });

  it('validates every option: an object, known keys only, integers in range', () => {
    const bad: Array<{ options: unknown; message: string | RegExp }> = [
      { options: null, message: 'readOnlyTools: options must be an object, got null.' },
      { options: [], message: /options must be an object, got an array/ },
      { options: 'fast', message: /options must be an object, got string/ },
      { options: { maxOutputChar: 500 }, message: 'readOnlyTools: unknown option "maxOutputChar"; the options are maxOutputChars, timeBudgetMs, byteBudget.' },
      { options: { maxOutputChars: 2_000_000 }, message: 'readOnlyTools: options.maxOutputChars must be an integer from 200 to 1000000, got 2000000.' },
      { options: { timeBudgetMs: 10 }, message: 'readOnlyTools: options.timeBudgetMs must be an integer from 100 to 600000, got 10.' },
      { options: { timeBudgetMs: Number.NaN }, message: /timeBudgetMs must be an integer .* got NaN/ },
      { options: { byteBudget: '1MB' }, message: /options.byteBudget must be an integer from 1024 to 1073741824, got string/ },
      { options: { byteBudget: 1024 ** 3 + 1 }, message: /options.byteBudget must be an integer/ },
    ];
    for (const { options, message } of bad) {
      expect(() => readOnlyTools(fixture.root, options as ReadOnlyToolsOptions)).toThrow(UsageError);
      expect(() => readOnlyTools(fixture.root, options as ReadOnlyToolsOptions)).toThrow(message);
    }
    expect(readOnlyTools(fixture.root, { maxOutputChars: 200, timeBudgetMs: 100, byteBudget: 1024 })).toHaveLength(4);
  });

  it('reports a root that does not exist as an error, not as an empty project', async () => {
    const tools = readOnlyTools(path.join(fixture.root, 'no-such-root'));
    await expect(run(tools, 'list_dir', {})).rejects.toThrow(/project root .* cannot be opened/);
  });
});

describe('read_file', () => {
  it('returns numbered lines, and pages with offset and limit', async () => {
    const tools = readOnlyTools(fixture.root);
    expect(await run(tools, 'read_file', { path: 'src/alpha.ts' })).toBe(
      '1\texport const alpha = 1;\n2\tconst beta = 2;\n3\texport const ALPHA_TOO = alpha + beta;',
    );
    expect(await run(tools, 'read_file', { path: 'src/alpha.ts', offset: 2, limit: 1 })).toBe(
      '2\tconst beta = 2;\n[more lines follow: continue with offset 3]',
    );
    expect(await run(tools, 'read_file', { path: 'src/alpha.ts', offset: 9 })).toBe('(src/alpha.ts has only 3 lines)');
  });

  it('accepts an absolute path that lies inside the root, and a symlink that stays inside', async () => {
    const tools = readOnlyTools(fixture.root);
    expect(await run(tools, 'read_file', { path: path.join(fixture.root, 'src', 'beta.ts') })).toBe('1\texport const beta = "b";');
    expect(await run(tools, 'read_file', { path: 'link-inside', limit: 1 })).toContain('export const alpha = 1;');
    expect(await run(tools, 'read_file', { path: 'src/../notes.md', limit: 1 })).toBe('1\t# Notes\n[more lines follow: continue with offset 2]');
  });

  it('refuses directories, binary files and missing files with a clear message', async () => {
    const tools = readOnlyTools(fixture.root);
    await expect(run(tools, 'read_file', { path: 'src' })).rejects.toThrow(/"src" is a directory/);
    await expect(run(tools, 'read_file', { path: 'image.bin' })).rejects.toThrow(/binary file/);
    await expect(run(tools, 'read_file', { path: 'nope.ts' })).rejects.toThrow(ReadOnlyToolError);
    await expect(run(tools, 'read_file', { path: 'nope.ts' })).rejects.toThrow(/"nope.ts" does not exist inside the project root/);
  });

  it('bounds a huge file by maxOutputChars and says where to resume', async () => {
    const lines = Array.from({ length: 5_000 }, (_, i) => `line ${i + 1} ${'x'.repeat(40)}`);
    await writeFile(path.join(fixture.root, 'huge.log'), lines.join('\n'));
    const tools = readOnlyTools(fixture.root, { maxOutputChars: 1_000 });
    const out = await run(tools, 'read_file', { path: 'huge.log' });
    expect(out.length).toBeLessThanOrEqual(1_000);
    const resume = /continue with offset (\d+)\]$/.exec(out);
    expect(resume).not.toBeNull();
    const next = Number(resume?.[1]);
    expect(out).toContain(`${next - 1}\tline ${next - 1} `);
    expect(await run(tools, 'read_file', { path: 'huge.log', offset: next, limit: 1 })).toMatch(new RegExp(`^${next}\\tline ${next} `));
  });

  it('reads CRLF files and a last line without a line break like any other', async () => {
    await writeFile(path.join(fixture.root, 'crlf.txt'), 'one\r\ntwo\r\n\r\nfour');
    expect(await run(readOnlyTools(fixture.root), 'read_file', { path: 'crlf.txt' })).toBe('1\tone\n2\ttwo\n3\t\n4\tfour');
    expect(await run(readOnlyTools(fixture.root), 'grep', { pattern: '^(two|four)$', regex: true, path: 'crlf.txt' })).toBe('crlf.txt:2: two\ncrlf.txt:4: four');
  });

  it('stops at the byte budget and says the result is incomplete', async () => {
    const lines = Array.from({ length: 2_000 }, (_, i) => `row ${i + 1}`);
    await writeFile(path.join(fixture.root, 'rows.txt'), `${lines.join('\n')}\n`);
    const out = await run(readOnlyTools(fixture.root, { byteBudget: 1_024, maxOutputChars: 100_000 }), 'read_file', { path: 'rows.txt' });
    const shown = out.split('\n');
    expect(shown.at(-1)).toBe('[read stopped after reading 1024 bytes (byte budget 1024); results may be incomplete]');
    expect(shown.length).toBeLessThan(200);
    expect(shown[0]).toBe('1\trow 1');
    const grep = await run(readOnlyTools(fixture.root, { byteBudget: 1_024 }), 'grep', { pattern: 'row 1999', path: 'rows.txt' });
    expect(grep).toBe('No matches.\n[search stopped after reading 1024 bytes (byte budget 1024); results may be incomplete]');
  });

  it('cuts a single enormous line instead of sending it whole', async () => {
    await writeFile(path.join(fixture.root, 'one-line.txt'), 'y'.repeat(100_000));
    const out = await run(readOnlyTools(fixture.root), 'read_file', { path: 'one-line.txt' });
    expect(out.length).toBeLessThan(3_000);
    expect(out).toContain('[line cut, 98000 more characters]');
  });
});

describe('grep', () => {
  it('finds a literal pattern across the tree, skipping node_modules, binaries and symlinks', async () => {
    const out = await run(readOnlyTools(fixture.root), 'grep', { pattern: 'alpha' });
    expect(out.split('\n')).toEqual([
      'deep/a/b/found.test.ts:1: it("alpha works", () => {});',
      'notes.md:3: alpha is documented here.',
      'src/alpha.ts:1: export const alpha = 1;',
      'src/alpha.ts:3: export const ALPHA_TOO = alpha + beta;',
    ]);
    expect(out).not.toContain(SECRET);
  });

  it('treats the pattern literally unless regex is true, and honours ignoreCase and a path', async () => {
    const tools = readOnlyTools(fixture.root);
    expect(await run(tools, 'grep', { pattern: 'alpha.*beta' })).toBe('No matches.');
    expect(await run(tools, 'grep', { pattern: 'alpha.*beta', regex: true })).toBe('src/alpha.ts:3: export const ALPHA_TOO = alpha + beta;');
    expect(await run(tools, 'grep', { pattern: 'ALPHA', ignoreCase: true, path: 'src/alpha.ts' })).toBe(
      'src/alpha.ts:1: export const alpha = 1;\nsrc/alpha.ts:3: export const ALPHA_TOO = alpha + beta;',
    );
  });

  it('refuses a regular expression that can backtrack exponentially, before reading anything', async () => {
    await expect(run(readOnlyTools(fixture.root), 'grep', { pattern: '(\\w+\\s?)+$', regex: true })).rejects.toThrow(ReadOnlyToolError);
    await expect(run(readOnlyTools(fixture.root), 'grep', { pattern: '(x)\\1', regex: true })).rejects.toThrow(/Backreferences/);
  });

  it('says when files were skipped for size', async () => {
    await writeFile(path.join(fixture.root, 'big.log'), `alpha\n${'z'.repeat(3 * 1024 * 1024)}`);
    const out = await run(readOnlyTools(fixture.root), 'grep', { pattern: 'alpha', path: 'big.log' });
    expect(out).toBe('No matches.\n[skipped 1 file over 2097152 bytes; page through them with read_file]');
  });

  it('reports an invalid regular expression as an error', async () => {
    await expect(run(readOnlyTools(fixture.root), 'grep', { pattern: '(unclosed', regex: true })).rejects.toThrow(/not a valid regular expression/);
  });

  it('stops at 200 matches and says so', async () => {
    await writeFile(path.join(fixture.root, 'many.txt'), Array.from({ length: 500 }, (_, i) => `hit ${i}`).join('\n'));
    const out = await run(readOnlyTools(fixture.root), 'grep', { pattern: 'hit', path: 'many.txt' });
    const lines = out.split('\n');
    expect(lines.filter((line) => line.startsWith('many.txt:'))).toHaveLength(200);
    expect(lines.at(-1)).toBe('[stopped at 200 matches; narrow the pattern or the path]');
  });

  it('bounds the total output by maxOutputChars', async () => {
    await writeFile(path.join(fixture.root, 'wide.txt'), Array.from({ length: 150 }, () => `hit ${'z'.repeat(250)}`).join('\n'));
    const out = await run(readOnlyTools(fixture.root, { maxOutputChars: 2_000 }), 'grep', { pattern: 'hit' });
    expect(out.length).toBeLessThanOrEqual(2_000);
    expect(out).toMatch(/\[output truncated: \d+ more characters\]$/);
  });
});

describe('find_files', () => {
  it('matches a name fragment without regard to case', async () => {
    expect(await run(readOnlyTools(fixture.root), 'find_files', { pattern: 'ALPHA' })).toBe('src/alpha.ts');
  });

  it('matches a glob against the name, or against the path when it has a slash', async () => {
    const tools = readOnlyTools(fixture.root);
    expect(await run(tools, 'find_files', { pattern: '*.ts' })).toBe('deep/a/b/found.test.ts\nsrc/alpha.ts\nsrc/beta.ts');
    expect(await run(tools, 'find_files', { pattern: '**/*.test.ts' })).toBe('deep/a/b/found.test.ts');
    expect(await run(tools, 'find_files', { pattern: 'src/{alpha,beta}.ts' })).toBe('src/alpha.ts\nsrc/beta.ts');
    expect(await run(tools, 'find_files', { pattern: '*.ts', path: 'src' })).toBe('src/alpha.ts\nsrc/beta.ts');
    expect(await run(tools, 'find_files', { pattern: '*.py' })).toBe('No files found.');
  });

  it('never lists files reached through a symlinked directory that leaves the root', async () => {
    const out = await run(readOnlyTools(fixture.root), 'find_files', { pattern: 'secret' });
    expect(out).toBe('No files found.');
  });

  it('stops at 500 files and bounds the output', async () => {
    await Promise.all(Array.from({ length: 520 }, (_, i) => writeFile(path.join(fixture.root, `gen-${String(i).padStart(3, '0')}.txt`), '')));
    const full = await run(readOnlyTools(fixture.root, { maxOutputChars: 100_000 }), 'find_files', { pattern: 'gen-' });
    expect(full.split('\n').filter((line) => line.startsWith('gen-'))).toHaveLength(500);
    expect(full).toContain('[stopped at 500 files; narrow the pattern or the path]');
    const bounded = await run(readOnlyTools(fixture.root, { maxOutputChars: 500 }), 'find_files', { pattern: 'gen-' });
    expect(bounded.length).toBeLessThanOrEqual(500);
    // The note that says the list is incomplete survives the cut.
    expect(bounded.endsWith('\n[stopped at 500 files; narrow the pattern or the path]')).toBe(true);
  });
});

describe('list_dir', () => {
  it('lists the root with directories marked / and symlinks marked @', async () => {
    expect(await run(readOnlyTools(fixture.root), 'list_dir', {})).toBe(
      ['deep/', 'image.bin', 'link-inside@', 'link-out@', 'linkdir-out@', 'node_modules/', 'notes.md', 'src/'].join('\n'),
    );
    expect(await run(readOnlyTools(fixture.root), 'list_dir', { path: 'src' })).toBe('alpha.ts\nbeta.ts');
  });

  it('refuses a FIFO, and reading one never blocks', async () => {
    execFileSync('mkfifo', [path.join(fixture.root, 'pipe')]);
    await expect(run(readOnlyTools(fixture.root), 'list_dir', { path: 'pipe' })).rejects.toThrow('"pipe" is not a directory.');
    await expect(run(readOnlyTools(fixture.root), 'find_files', { pattern: '*', path: 'pipe' })).rejects.toThrow('"pipe" is not a directory.');
  });

  it('refuses a file where a directory is expected', async () => {
    await expect(run(readOnlyTools(fixture.root), 'list_dir', { path: 'notes.md' })).rejects.toThrow(/"notes.md" is not a directory/);
  });
});

describe('confinement to the root', () => {
  const escapes: Array<{ how: string; path: () => string; message: RegExp }> = [
    { how: 'a ../ path', path: () => '../root-outside/secret.txt', message: /climbs out of the project root/ },
    { how: 'a ../ path hidden in the middle', path: () => 'src/../../root-outside/secret.txt', message: /climbs out of the project root/ },
    { how: 'the parent itself', path: () => '..', message: /climbs out of the project root/ },
    { how: 'an absolute system path', path: () => '/etc/passwd', message: /absolute path outside the project root/ },
    { how: 'an absolute path to a sibling sharing the root’s name prefix', path: () => path.join(fixture.outside, 'secret.txt'), message: /absolute path outside/ },
    { how: 'a symlinked file pointing outside', path: () => 'link-out', message: /symlink that points outside the project root/ },
    { how: 'a file under a symlinked directory pointing outside', path: () => 'linkdir-out/secret.txt', message: /symlink that points outside/ },
  ];

  for (const escape of escapes) {
    it(`read_file refuses ${escape.how}`, async () => {
      const attempt = run(readOnlyTools(fixture.root), 'read_file', { path: escape.path() });
      await expect(attempt).rejects.toThrow(PathOutsideRootError);
      await expect(run(readOnlyTools(fixture.root), 'read_file', { path: escape.path() })).rejects.toThrow(escape.message);
    });
  }

  it('every tool refuses a symlinked directory that escapes, and the message names the path and the rule', async () => {
    const tools = readOnlyTools(fixture.root);
    // Thunks, so each refusal is awaited as it is made (no promise rejects unobserved).
    const attempts = [
      () => run(tools, 'list_dir', { path: 'linkdir-out' }),
      () => run(tools, 'grep', { pattern: 'SECRET', path: 'linkdir-out' }),
      () => run(tools, 'find_files', { pattern: '*', path: 'linkdir-out' }),
      () => run(tools, 'grep', { pattern: 'SECRET', path: '../root-outside' }),
      () => run(tools, 'find_files', { pattern: '*', path: '/etc' }),
      () => run(tools, 'list_dir', { path: '/' }),
    ];
    for (const attempt of attempts) {
      await expect(attempt()).rejects.toThrow(/^Refused: ".+" .+; the judge can only read inside the project root\.$/);
    }
  });

  it('never leaks the outside file’s content, even from a whole-tree search', async () => {
    const tools = readOnlyTools(fixture.root);
    expect(await run(tools, 'grep', { pattern: SECRET })).toBe('No matches.');
    await expect(run(tools, 'read_file', { path: 'link-out' })).rejects.not.toThrow(SECRET);
  });

  it('refuses a symlink that is created after the tools were made', async () => {
    const tools = readOnlyTools(fixture.root);
    const { symlink } = await import('node:fs/promises');
    await symlink('/etc', path.join(fixture.root, 'src', 'late-link'));
    await expect(run(tools, 'list_dir', { path: 'src/late-link' })).rejects.toThrow(PathOutsideRootError);
  });
});
