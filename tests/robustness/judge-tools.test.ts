import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { mkdir, open, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Tool } from 'groundswell';
import { ReadOnlyToolError } from '../../src/file-tools/errors.js';
import { readOnlyTools } from '../../src/file-tools/read-only-tools.js';
import { makeFixture, SECRET, type Fixture } from '../file-tools/fixture.js';
import { startSwapLoop } from '../support/swap-loop.js';

let fixture: Fixture;
const fifos: string[] = [];
beforeEach(async () => {
  fixture = await makeFixture();
});
afterEach(async () => {
  // If a regression ever blocks a thread in open() on a FIFO, a writer appearing releases it, so
  // one failing test cannot hang the rest of the suite's file I/O.
  for (const fifo of fifos.splice(0)) {
    for (let i = 0; i < 8; i += 1) {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        break; // ENXIO: nobody is waiting to read
      }
    }
  }
  await fixture.cleanup();
});

async function call(tools: readonly Tool[], name: string, input: unknown, signal?: AbortSignal): Promise<string> {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`no tool named ${name}`);
  const result: unknown = await tool.execute(tool.input.parse(input), { env: {}, signal, agentName: 'judge', toolUseId: 'toolu_hostile' });
  if (typeof result !== 'string') throw new Error(`tool ${name} returned a ${typeof result}`);
  return result;
}

/** Settles a call into what it returned or the message it failed with, so a batch can be inspected whole. */
async function outcome(attempt: Promise<string>): Promise<{ ok: boolean; text: string }> {
  try {
    return { ok: true, text: await attempt };
  } catch (error) {
    return { ok: false, text: error instanceof Error ? error.message : String(error) };
  }
}

describe('a directory swapped for a symlink while the tools read through it', () => {
  it('never returns the outside content, over thousands of reads racing a swap loop', async () => {
    const dir = path.join(fixture.root, 'swapped');
    await mkdir(dir);
    await writeFile(path.join(dir, 'secret.txt'), 'INSIDE-CONTENT\n');
    // The outside directory holds a file of the same name, so a redirected open finds it.
    const tools = readOnlyTools(fixture.root);
    const loop = await startSwapLoop(dir, fixture.outside);
    const counts = { inside: 0, leaked: 0, refused: 0 };
    const deadline = Date.now() + 3_000;
    try {
      for (let attempt = 0; attempt < 4_000 && Date.now() < deadline; attempt += 4) {
        const batch = await Promise.all([
          outcome(call(tools, 'read_file', { path: 'swapped/secret.txt' })),
          outcome(call(tools, 'read_file', { path: 'swapped/secret.txt' })),
          outcome(call(tools, 'grep', { pattern: 'CONTENT', path: 'swapped' })),
          outcome(call(tools, 'grep', { pattern: 'SECRET' })),
        ]);
        for (const result of batch) {
          if (result.text.includes(SECRET)) counts.leaked += 1;
          else if (result.ok && result.text.includes('INSIDE-CONTENT')) counts.inside += 1;
          else if (!result.ok) counts.refused += 1;
        }
      }
    } finally {
      const swaps = await loop.stop();
      expect(swaps).toBeGreaterThan(0);
    }
    expect(counts.leaked).toBe(0);
    // The race really ran: some reads saw the directory, some met the swap.
    expect(counts.inside).toBeGreaterThan(0);
    expect(counts.refused).toBeGreaterThan(0);
  }, 30_000);
});

describe('named pipes inside the root', () => {
  it('every tool returns promptly, several calls at once, and file I/O keeps working afterwards', async () => {
    const pipe = path.join(fixture.root, 'pipe');
    const nested = path.join(fixture.root, 'src', 'nested-pipe');
    execFileSync('mkfifo', [pipe, nested]);
    fifos.push(pipe, nested);
    const tools = readOnlyTools(fixture.root);
    const [grepPipe, grepNested, readPipe, [grepAll, find, list]] = await Promise.all([
      Promise.all(Array.from({ length: 6 }, () => outcome(call(tools, 'grep', { pattern: 'alpha', path: 'pipe' })))),
      Promise.all(Array.from({ length: 3 }, () => outcome(call(tools, 'grep', { pattern: 'x', regex: true, path: 'src/nested-pipe' })))),
      Promise.all(Array.from({ length: 3 }, () => outcome(call(tools, 'read_file', { path: 'pipe' })))),
      Promise.all([
        outcome(call(tools, 'grep', { pattern: 'alpha' })),
        outcome(call(tools, 'find_files', { pattern: '*pipe*' })),
        outcome(call(tools, 'list_dir', { path: 'src' })),
      ]),
    ]);
    const notAFileOrDirectory = '"pipe" is neither a regular file nor a directory (FIFOs, sockets and devices are never read).';
    expect(grepPipe).toEqual(Array.from({ length: 6 }, () => ({ ok: false, text: notAFileOrDirectory })));
    expect(grepNested.map((result) => result.ok)).toEqual([false, false, false]);
    expect(readPipe).toEqual(Array.from({ length: 3 }, () => ({ ok: false, text: '"pipe" is not a regular file (FIFOs, sockets and devices are never read).' })));
    expect(grepAll.text).toContain('src/alpha.ts:1: export const alpha = 1;');
    expect(find).toEqual({ ok: true, text: 'No files found.' });
    expect(list).toEqual({ ok: true, text: 'alpha.ts\nbeta.ts\nnested-pipe' });
    // No libuv thread is left parked on a pipe: ordinary reads still complete.
    expect(await readFile(path.join(fixture.root, 'notes.md'), 'utf8')).toContain('# Notes');
    expect(await call(tools, 'read_file', { path: 'notes.md', limit: 1 })).toContain('1\t# Notes');
  }, 15_000);
});

describe('a file that is one enormous line', () => {
  it('read_file returns a bounded result for a line longer than any JavaScript string can be', async () => {
    // 1 GiB, sparse: text at the start, then zeros (no line break anywhere), so it costs no disk.
    const file = path.join(fixture.root, 'endless.txt');
    const handle = await open(file, 'w');
    await handle.write('a'.repeat(64 * 1024));
    await handle.truncate(1024 ** 3);
    await handle.close();
    const tools = readOnlyTools(fixture.root);
    const out = await call(tools, 'read_file', { path: 'endless.txt' });
    expect(out.length).toBeLessThanOrEqual(20_000);
    expect(out).toMatch(/^1\ta{2000}… \[line cut, at least \d+ more characters\]\n\[read stopped after reading \d+ bytes \(byte budget 67108864\); results may be incomplete\]$/);
    const grep = await call(tools, 'grep', { pattern: 'a', path: 'endless.txt' });
    expect(grep).toBe('No matches.\n[skipped 1 file over 2097152 bytes; page through them with read_file]');
  }, 30_000);

  it('read_file and grep stay bounded on 50 MB of one line', async () => {
    await writeFile(path.join(fixture.root, 'wide.txt'), 'a'.repeat(50 * 1024 * 1024));
    const tools = readOnlyTools(fixture.root);
    const out = await call(tools, 'read_file', { path: 'wide.txt' });
    expect(out).toBe(`1\t${'a'.repeat(2_000)}… [line cut, ${50 * 1024 * 1024 - 2_000} more characters]`);
    expect(await call(tools, 'grep', { pattern: 'a+$', regex: true })).toBe(
      'No matches.\n[skipped 1 file over 2097152 bytes; page through them with read_file]',
    );
  }, 30_000);
});

describe('pathological patterns', () => {
  it('a glob with ten stars against a 45-character name is answered', async () => {
    await writeFile(path.join(fixture.root, 'a'.repeat(45)), '');
    const glob = `${'*a'.repeat(9)}*b`;
    expect(glob.split('*')).toHaveLength(11);
    expect(await call(readOnlyTools(fixture.root), 'find_files', { pattern: glob })).toBe('No files found.');
    expect(await call(readOnlyTools(fixture.root), 'find_files', { pattern: `${'*a'.repeat(9)}*` })).toBe('a'.repeat(45));
  }, 20_000);

  it('a nested-quantifier regex is refused as a tool error', async () => {
    await writeFile(path.join(fixture.root, 'as.txt'), `${'a'.repeat(27)}!\n`);
    const attempt = call(readOnlyTools(fixture.root), 'grep', { pattern: '^(a+)+$', regex: true });
    await expect(attempt).rejects.toThrow(ReadOnlyToolError);
    await expect(call(readOnlyTools(fixture.root), 'grep', { pattern: '^(a+)+$', regex: true })).rejects.toThrow(/exponential time/);
  }, 20_000);

  it('a polynomial regex the static check lets through is stopped by the time budget, and the event loop stays free', async () => {
    await writeFile(path.join(fixture.root, 'as.txt'), `${'a'.repeat(5_000)}!\n`);
    let timerRan = false;
    const timer = setTimeout(() => {
      timerRan = true;
    }, 20);
    const out = await call(readOnlyTools(fixture.root, { timeBudgetMs: 600 }), 'grep', { pattern: '^a*a*a*a*a*a*$', regex: true, path: 'as.txt' });
    clearTimeout(timer);
    expect(out).toMatch(/^No matches\.\n\[search stopped after \d+ ms \(time budget 600 ms\); results may be incomplete\]$/);
    expect(timerRan).toBe(true);
  }, 20_000);

  it('an invalid glob range is a tool error, not a SyntaxError', async () => {
    const attempt = call(readOnlyTools(fixture.root), 'find_files', { pattern: '[z-a]*' });
    await expect(attempt).rejects.toThrow(ReadOnlyToolError);
    await expect(call(readOnlyTools(fixture.root), 'find_files', { pattern: '[z-a]*' })).rejects.toThrow(/range that runs backwards \(z-a\)/);
  });
});

describe('abort', () => {
  it('stops a runaway regex search when the call is aborted', async () => {
    await writeFile(path.join(fixture.root, 'as.txt'), `${'a'.repeat(5_000)}!\n`);
    const controller = new AbortController();
    const reason = new Error('cancelled by the workflow');
    setTimeout(() => controller.abort(reason), 200);
    const tools = readOnlyTools(fixture.root, { timeBudgetMs: 600_000 });
    await expect(call(tools, 'grep', { pattern: '^a*a*a*a*a*a*$', regex: true }, controller.signal)).rejects.toBe(reason);
  }, 20_000);

  it('every tool refuses to start under an aborted signal', async () => {
    const signal = AbortSignal.abort(new Error('already cancelled'));
    const tools = readOnlyTools(fixture.root);
    for (const [name, input] of [
      ['read_file', { path: 'notes.md' }],
      ['grep', { pattern: 'alpha' }],
      ['find_files', { pattern: '*.ts' }],
      ['list_dir', {}],
    ] as const) {
      await expect(call(tools, name, input, signal)).rejects.toThrow('already cancelled');
    }
  });
});
