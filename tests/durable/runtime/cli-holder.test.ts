import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, isSuspension, signal, type Workflow } from 'groundswell';
import { JournalRunStore, RunNotFoundError, type RunStore } from 'groundswell/durable';
import { PostgresRunStore } from 'groundswell/postgres';
import { json, ScriptedModel } from 'groundswell/testing';
import { runCli } from '../../../src/cli/run-cli.js';
import { bundleFixture } from '../../support/bundle-fixture.js';
import { agentModelSync } from '../../support/model-path.js';
import { PG_CONNECTION } from '../../support/postgres-service.js';
import { eachRunStore } from '../../support/run-store-kinds.js';
import { clockAhead, storeAgain } from '../../support/store-again.js';

let store: RunStore;

/** The flags that open `store` from the command line. */
function storeFlags(target: RunStore): string[] {
  if (target instanceof JournalRunStore) return ['--store', target.dir];
  if (!(target instanceof PostgresRunStore)) throw new Error('a journal or PostgreSQL store only');
  const url =
    typeof PG_CONNECTION === 'string'
      ? PG_CONNECTION
      : `postgresql://${encodeURIComponent(PG_CONNECTION.user)}@${encodeURIComponent(PG_CONNECTION.host)}/${encodeURIComponent(PG_CONNECTION.database)}`;
  return ['--pg', url, '--schema', target.schema];
}

/** `groundswell runs list` on the test's store: its output lines. */
async function listed(): Promise<string[]> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['runs', 'list', ...storeFlags(store)], { out: (text) => out.push(text), err: (text) => err.push(text) });
  expect(err.join('\n')).toBe('');
  expect(code).toBe(0);
  return out.join('\n').split('\n');
}

function lineOf(lines: readonly string[], runId: string): string {
  const line = lines.find((text) => text.startsWith(`${runId}  `));
  expect(line, `a line for ${runId} in:\n${lines.join('\n')}`).toBeDefined();
  return line as string;
}

/** A draft (one agent call), a wait for "go", then a step that works until `release` is called. */
function approval(target: RunStore, gate: Promise<void>): () => Workflow<string> {
  return () => {
    const writer = createAgent({ name: 'writer', ...agentModelSync(new ScriptedModel(() => json({ summary: 'ok' }))) });
    return createWorkflow({ name: 'Release', durable: { store: target, runId: 'rel' } }, async (ctx) => {
      const notes = await ctx.step('draft', () => writer.prompt(createPrompt({ user: 'draft the notes', responseFormat: z.object({ summary: z.string() }) })));
      await ctx.waitFor('go', z.object({ ok: z.boolean() }));
      await ctx.step('publish', () => gate);
      return notes.summary;
    });
  };
}

eachRunStore(
  (opened) => (store = opened),
  () => {
    describe('runs list: whether a running run is still held', () => {
      it('a run whose holder stopped renewing reads "holder gone: lease expired at" its expiry', async () => {
        await store.createRun({ id: 'stale', rootName: 'Stale' });
        // Taken an hour ago for a minute, never renewed: what a killed holder leaves behind.
        const past = storeAgain(store, clockAhead(-3_600_000));
        const lease = await past.acquireLease('stale', 'host-b:4242:abcd', 60_000);
        await past.close();
        const line = lineOf(await listed(), 'stale');
        expect(line).toMatch(/^stale {2}running {4}Stale .* {2}usage not yet stored {2}holder gone: lease expired at /);
        expect(line.endsWith(`holder gone: lease expired at ${new Date(lease.expiresAt).toISOString()}`)).toBe(true);
        expect(await store.leaseOf?.('stale')).toEqual({ owner: 'host-b:4242:abcd', expiresAt: lease.expiresAt, state: 'expired' });
      });

      it('a working run reads "holder alive" with the usage it stored when it last waited; a released lease, "no holder"', async () => {
        let release = (): void => undefined;
        const gate = new Promise<void>((resolve) => (release = resolve));
        expect(isSuspension(await approval(store, gate)().run().catch((e: unknown) => e))).toBe(true);
        const stored = await store.getRun('rel');
        const tokens = (stored?.usage?.inputTokens ?? 0) + (stored?.usage?.outputTokens ?? 0);
        expect(tokens).toBeGreaterThan(0);
        // Resumed here: the run works in "publish" until the gate opens.
        const running = signal('rel', 'go', { ok: true }, { store, workflows: { Release: approval(store, gate) } });
        for (let i = 0; i < 500 && (await store.getRun('rel'))?.status !== 'running'; i += 1) await new Promise((wake) => setTimeout(wake, 10));
        const line = lineOf(await listed(), 'rel');
        expect(line).toMatch(new RegExp(`^rel {2}running {4}Release .* {2}${tokens} tokens so far {2}- {2}holder alive: \\S+ \\(lease until \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\)$`));
        expect((await store.leaseOf?.('rel'))?.state).toBe('alive');
        release();
        expect(await running).toBe('ok');
        expect(lineOf(await listed(), 'rel')).toMatch(new RegExp(`^rel {2}completed {2}Release .* {2}${tokens} tokens {2}-$`));
        expect(await store.leaseOf?.('rel')).toBeUndefined();

        // Running, and nobody holds it (a holder stopped without storing an outcome): said as such.
        await store.createRun({ id: 'orphan', rootName: 'Orphan' });
        expect(lineOf(await listed(), 'orphan')).toMatch(/ {2}usage not yet stored {2}no holder$/);
        await expect(store.leaseOf?.('ghost')).rejects.toBeInstanceOf(RunNotFoundError);
      });
    });
  },
);

describe('runs list on the journal store', () => {
  let bundle = '';
  beforeAll(async () => {
    const bundled = await bundleFixture(join(import.meta.dirname, 'fixtures', 'holding-run.ts'), 'holding-run');
    bundle = bundled.file;
    return bundled.remove;
  });

  it('a run whose process was SIGKILLed reads "holder gone: process exited" at once, before its lease would expire', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-holder-'));
    try {
      const child = spawn(process.execPath, [bundle, dir, 'held'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const closed = new Promise<string | null>((resolve) => child.on('close', (_code, signalName) => resolve(signalName)));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => chunk.toString('utf8').includes('holding') && resolve());
        child.on('close', () => reject(new Error(`the child ended before holding the run: ${stderr}`)));
      });
      store = new JournalRunStore({ dir, fsync: 'off' });
      expect(lineOf(await listed(), 'held')).toMatch(/ {2}holder alive: \S+:\d+:\S+ \(lease until /);
      child.kill('SIGKILL');
      expect(await closed).toBe('SIGKILL');
      const line = lineOf(await listed(), 'held');
      expect(line).toMatch(/^held {2}running {4}Held .* {2}usage not yet stored {2}holder gone: process exited \(\S+:\d+:\S+\)$/);
      const holder = await store.leaseOf?.('held');
      expect(holder?.state).toBe('exited');
      expect(holder?.expiresAt).toBeGreaterThan(Date.now());
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
