import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkflow, isSuspension, resume, signal, SignalNameError } from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { runCli } from '../../../src/cli/run-cli.js';

let dir: string;
let store: JournalRunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-signal-name-'));
  store = new JournalRunStore({ dir, fsync: 'off' });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

// Waits for "approval", then for "comment".
function review(runId: string) {
  return createWorkflow({ name: 'Review', durable: { store, runId } }, async (ctx) => {
    const approval = await ctx.waitFor('approval', z.object({ ok: z.boolean() }));
    const comment = await ctx.waitFor('comment', z.string());
    return `${approval.ok ? 'approved' : 'refused'}: ${comment}`;
  });
}

async function suspended(runId: string): Promise<void> {
  expect(isSuspension(await review(runId).run().catch((e: unknown) => e))).toBe(true);
}

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('a signal for a name the run does not wait for', () => {
  it('is refused, with the waited name and a suggestion, and nothing is stored', async () => {
    await suspended('r1');
    const error = await signal('r1', 'aproval', { ok: true }, { store }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SignalNameError);
    expect(error).toMatchObject({ waitingFor: 'approval', suggestion: 'approval' });
    expect((error as Error).message).toContain('waits for signal "approval", not "aproval" (did you mean "approval"?)');
    expect((await store.loadRun('r1')).signals).toEqual([]);

    const far = await signal('r1', 'shipping', 1, { store }).catch((e: unknown) => e);
    expect(far).toMatchObject({ waitingFor: 'approval', suggestion: undefined });
    expect((far as Error).message).not.toContain('did you mean');
  });

  it('is stored with ahead: true and taken by the later wait', async () => {
    await suspended('r2');
    await signal('r2', 'comment', 'looks good', { store, ahead: true });
    const result = await signal('r2', 'approval', { ok: true }, { store, workflows: { Review: () => review('r2') } });
    expect(result).toBe('approved: looks good');
  });

  it('is stored for a running run, whose next wait is not known yet', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const later = (wait: Promise<void>) =>
      createWorkflow({ name: 'Later', durable: { store, runId: 'r3' } }, async (ctx) => {
        started();
        await wait;
        return ctx.waitFor('go', z.number());
      });
    const run = later(gate).run().catch((e: unknown) => e);
    await running;
    expect((await store.getRun('r3'))?.status).toBe('running');
    await signal('r3', 'go', 5, { store });
    release();
    await run;
    expect(await resume('r3', { store, workflows: { Later: () => later(Promise.resolve()) } })).toBe(5);
  });

  it('is a usage error in the CLI (exit 2) unless --ahead', async () => {
    await suspended('r4');
    await store.close();
    const refused = await cli('runs', 'signal', 'r4', 'aproval', '{"ok":true}', '--store', dir);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('Run r4 waits for signal "approval", not "aproval"; nothing was stored. Did you mean "approval"?');
    expect(refused.err).toContain('--ahead');
    expect((await cli('runs', 'show', 'r4', '--store', dir)).out).toContain('0 signals');

    const ahead = await cli('runs', 'signal', 'r4', 'comment', '"fine"', '--store', dir, '--ahead');
    expect(ahead.code).toBe(0);
    expect((await cli('runs', 'show', 'r4', '--store', dir)).out).toContain('1 signals');
  });
});
