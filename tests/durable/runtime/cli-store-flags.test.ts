import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JournalRunStore } from 'groundswell/durable';
import { runCli } from '../../../src/cli/run-cli.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-cli-flags-'));
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Nothing listens on port 1: a PostgreSQL store there fails to connect at once. */
const NOWHERE = 'postgres://127.0.0.1:1/nowhere';

async function oneRun(): Promise<void> {
  const store = new JournalRunStore({ dir, fsync: 'off' });
  await store.createRun({ id: 'j1', rootName: 'Journal' });
  await store.close();
}

describe('groundswell store flags', () => {
  it('a --schema the store refuses is a usage message with exit code 2, not a stack trace', async () => {
    for (const argv of [
      ['runs', 'list', '--pg', NOWHERE, '--schema', 'Bad-Name'],
      ['view', '--pg', NOWHERE, '--schema', 'Bad-Name'],
    ]) {
      const bad = await cli(...argv);
      expect(bad.code).toBe(2);
      expect(bad.err.split('\n')[0]).toMatch(/schema .*"Bad-Name"/);
      expect(bad.err).not.toMatch(/^\s+at /m);
    }
  });

  it('--store and --pg together, an empty --pg, and --schema without PostgreSQL are usage errors', async () => {
    expect((await cli('runs', 'list', '--store', dir, '--pg', NOWHERE)).err).toMatch(/^Give one store/);
    expect((await cli('runs', 'list', '--pg', '')).err).toMatch(/^--pg needs a PostgreSQL connection URL/);
    const schema = await cli('runs', 'list', '--store', dir, '--schema', 'other');
    expect(schema.code).toBe(2);
    expect(schema.err).toMatch(/^--schema applies to a PostgreSQL store/);
  });

  it('GROUNDSWELL_PG_URL is the store only when neither --store nor --pg is given, as the help says', async () => {
    await oneRun();
    vi.stubEnv('GROUNDSWELL_PG_URL', NOWHERE);
    const help = await cli('--help');
    expect(help.out).toContain('With neither, runs commands read PostgreSQL at GROUNDSWELL_PG_URL when it is set,');
    expect(help.out).toContain('else the journal in .groundswell/runs');
    // A flag wins over the environment.
    const journal = await cli('runs', 'list', '--store', dir);
    expect(journal.code).toBe(0);
    expect(journal.out).toMatch(/^j1 +running +Journal /);
    // Without one, the environment's PostgreSQL is read (and cannot be reached here): one line, exit 1.
    const fromEnv = await cli('runs', 'list');
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.err).toContain('127.0.0.1:1');
    expect(fromEnv.err).not.toMatch(/^\s+at /m);
    expect(fromEnv.err.split('\n')).toHaveLength(1);
  });
});
