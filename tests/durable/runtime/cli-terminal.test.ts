import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkflow, isSuspension } from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { runCli } from '../../../src/cli/run-cli.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-cli-term-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** What a hostile name carries: a title change (OSC ... BEL), clear screen, cursor up, CR, a C1 CSI, bidi, and a forged line. */
const FORGED = '✗ workflow Deploy failed';
const hostile = (label: string): string => `${label}\x1b]0;pwned\x07\x1b[2J\x1b[1A\rX\u009b31m\u202eevil\u2066\x7f\n${FORGED}`;
/** Anything a terminal would act on instead of showing. */
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function expectInert(text: string, labels: readonly string[]): void {
  expect(text).not.toMatch(ACTIVE);
  // The forged text stays on the line of the name that carried it.
  for (const line of text.split('\n')) expect(line.trimStart().startsWith(FORGED)).toBe(false);
  for (const label of labels) expect(text.split('\n').some((line) => line.includes(label) && line.includes(FORGED))).toBe(true);
}

async function hostileRuns(): Promise<void> {
  const store = new JournalRunStore({ dir, fsync: 'off' });
  const waiting = createWorkflow({ name: hostile('WAITROOT'), durable: { store, runId: 'w1' } }, async (ctx) => {
    await ctx.step(hostile('STEPNAME'), () => 1);
    return ctx.waitFor(hostile('SIGNAL'), z.object({ ok: z.boolean() }));
  });
  expect(isSuspension(await waiting.run().catch((e: unknown) => e))).toBe(true);
  const failing = createWorkflow({ name: hostile('FAILROOT'), durable: { store, runId: 'f1' } }, async () => {
    throw new Error(hostile('ERRMSG'));
  });
  await expect(failing.run()).rejects.toThrow();
  await store.close();
}

describe('groundswell runs prints stored data inert', () => {
  it('list: hostile run and signal names cannot act on the terminal or forge a line', async () => {
    await hostileRuns();
    const listed = await cli('runs', 'list', '--store', dir);
    expect(listed.code).toBe(0);
    expectInert(listed.out, ['WAITROOT', 'FAILROOT', 'SIGNAL']);
    expect(listed.out.split('\n')).toHaveLength(2);
    // Shown, not dropped: the escapes name what was there.
    expect(listed.out).toContain('WAITROOT\\u001b]0;pwned\\u0007\\u001b[2J\\u001b[1A\\rX\\u009b31m\\u202eevil\\u2066\\u007f\\n✗ workflow Deploy failed');
  });

  it('show: the details, the stored error and the tree string are inert', async () => {
    await hostileRuns();
    const waiting = await cli('runs', 'show', 'w1', '--store', dir);
    expect(waiting.code).toBe(0);
    expectInert(waiting.out, ['WAITROOT', 'STEPNAME', 'SIGNAL']);
    const failed = await cli('runs', 'show', 'f1', '--store', dir);
    expect(failed.code).toBe(0);
    expectInert(failed.out, ['FAILROOT', 'ERRMSG']);
    // --json stays valid JSON and means the same text.
    const json = await cli('runs', 'show', 'f1', '--store', dir, '--json');
    expect(json.out).not.toMatch(ACTIVE);
    expect((JSON.parse(json.out) as { run: { rootName: string } }).run.rootName).toBe(hostile('FAILROOT'));
  });

  it('signal and resume: names in what they print and in their errors are inert', async () => {
    await hostileRuns();
    const stored = await cli('runs', 'signal', 'w1', hostile('OTHER'), '{"ok":true}', '--store', dir);
    expectInert(`${stored.out}\n${stored.err}`, ['OTHER']);
    const bad = await cli('runs', 'signal', 'w1', hostile('SIGNAL'), '{"ok":"yes"}', '--store', dir);
    expect(bad.code).toBe(1);
    expect(bad.err).not.toMatch(ACTIVE);
    const missing = await cli('runs', 'resume', 'w1', '--store', dir, '--workflows', join(dir, `x\x1b[2J\ny.mjs`));
    expect(missing.code).not.toBe(0);
    expect(missing.err).not.toMatch(ACTIVE);
  });
});
