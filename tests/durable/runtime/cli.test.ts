import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkflow, isSuspension } from 'groundswell';
import { JournalRunStore, RunFencedError } from 'groundswell/durable';
import { runCli } from '../../../src/cli/run-cli.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}


async function suspendedRun(): Promise<void> {
  const store = new JournalRunStore({ dir, fsync: 'off' });
  const wf = createWorkflow({ name: 'Gate', durable: { store, runId: 'g1' } }, async (ctx) => {
    const ok = await ctx.waitFor('go', z.object({ ok: z.boolean() }));
    return ok.ok ? 'opened' : 'closed';
  });
  expect(isSuspension(await wf.run().catch((e: unknown) => e))).toBe(true);
  await store.close();
}

describe('groundswell runs', () => {
  it('lists runs with their status and what they wait for', async () => {
    await suspendedRun();
    const listed = await cli('runs', 'list', '--store', dir);
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/^g1 {2}suspended {2}Gate .*waiting for "go"$/m);
    expect((await cli('runs', 'list', '--store', dir, '--status', 'completed')).out).toBe('No runs.');
  });

  it('shows a run with its tree', async () => {
    await suspendedRun();
    const shown = await cli('runs', 'show', 'g1', '--store', dir);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('status    suspended');
    expect(shown.out).toContain('waiting   for signal "go"');
    expect(shown.out).toMatch(/Gate \[workflow\]/);
  });

  it('stores a signal, refuses a bad one, and resumes with --workflows', async () => {
    await suspendedRun();
    const refused = await cli('runs', 'signal', 'g1', 'go', '{"ok":"yes"}', '--store', dir);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/SignalValueError: .*nothing was stored/);
    const module = join(dir, 'workflows.mjs');
    // The module's factory builds the workflow again; resume supplies the store and run id.
    writeFileSync(
      module,
      `import { z } from 'zod';\nimport { createWorkflow } from 'groundswell';\n` +
        `export const workflows = { Gate: () => createWorkflow({ name: 'Gate' }, async (ctx) => ((await ctx.waitFor('go', z.object({ ok: z.boolean() }))).ok ? 'opened' : 'closed')) };\n`,
    );
    const resumed = await cli('runs', 'signal', 'g1', 'go', '{"ok":true}', '--store', dir, '--workflows', module);
    expect(resumed.err).toBe('');
    expect(resumed.out).toBe('Run g1 completed: "opened"');
    expect((await cli('runs', 'list', '--store', dir)).out).toMatch(/^g1 {2}completed/m);
  });

  it('resume of a run a live process holds says how to take it over; --take-over takes it and fences that holder', async () => {
    const store = new JournalRunStore({ dir, fsync: 'off' });
    await store.createRun({ id: 'p1', rootName: 'Plain' });
    const held = await store.acquireLease('p1', 'elsewhere-holder', 600_000);
    const module = join(dir, 'workflows.mjs');
    writeFileSync(
      module,
      `import { createWorkflow } from 'groundswell';\n` + `export const workflows = { Plain: () => createWorkflow({ name: 'Plain' }, (ctx) => ctx.step('s', () => 'done')) };\n`,
    );
    const refused = await cli('runs', 'resume', 'p1', '--store', dir, '--workflows', module);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^RunLeaseError: Run "p1" is leased by "elsewhere-holder"/);
    expect(refused.err).toContain('groundswell runs resume p1 --workflows <module> --take-over');
    const taken = await cli('runs', 'resume', 'p1', '--store', dir, '--workflows', module, '--take-over');
    expect(taken.err).toBe('');
    expect(taken.out).toBe('Run p1 completed: "done"');
    await expect(store.putData('p1', 'late', 1, held)).rejects.toBeInstanceOf(RunFencedError);
    expect((await store.loadRun('p1')).data).toEqual({});
    expect((await cli('runs', '--help')).out).toContain('--take-over');
    await store.close();
  });

  it('says what is wrong with a bad call, with the usage and exit code 2', async () => {
    const bad = await cli('runs', 'list', '--store', dir, '--status', 'sleeping');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--status must be one of running, suspended, completed, failed, cancelled');
    expect((await cli('runs', 'show', '--store', dir)).err).toContain('Missing a run id.');
    expect((await cli('runs', 'show', 'nope', '--store', dir)).code).toBe(1);
  });
});
