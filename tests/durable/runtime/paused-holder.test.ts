import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JournalRunStore, type RunStore } from 'groundswell/durable';
import { PostgresRunStore } from 'groundswell/postgres';
import { bundleFixture } from '../../support/bundle-fixture.js';
import { PG_CONNECTION, probePostgres } from '../../support/postgres-service.js';

const postgres = await probePostgres();
const FIXTURE = join(import.meta.dirname, 'fixtures', 'paused-holder-run.ts');
let bundle = '';

beforeAll(async () => {
  const bundled = await bundleFixture(FIXTURE, 'paused-holder');
  bundle = bundled.file;
  return bundled.remove;
});

const schemas: string[] = [];
afterAll(async () => {
  if (schemas.length === 0) return;
  const client = new pg.Client(typeof PG_CONNECTION === 'string' ? { connectionString: PG_CONNECTION } : PG_CONNECTION);
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

/** Whether `pid` is stopped (state T in /proc): the holder is paused, not just slow. */
function isStopped(pid: number): boolean {
  try {
    return /^\d+ \(.*\) T/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 6_000 && !condition(); i += 1) await new Promise((wake) => setTimeout(wake, 10));
  if (!condition()) throw new Error(`gave up waiting for ${what}`);
}

/**
 * P1 runs the order and stops itself (SIGSTOP) where `mode` says; P2 resumes once P1's lease
 * lapsed and completes the run; then P1 is continued. What each ran is read from effects.log.
 */
async function pausedHolder(spec: string, mode: 'short' | 'long' | 'between'): Promise<{ effects: string[]; p1: string; p1Code: number | null; p2: string }> {
  const work = mkdtempSync(join(tmpdir(), 'gs-paused-'));
  try {
    const p1 = spawn(process.execPath, [bundle, spec, work, 'p1', mode], { stdio: ['ignore', 'pipe', 'pipe'] });
    let p1Out = '';
    p1.stdout.on('data', (chunk: Buffer) => (p1Out += chunk.toString()));
    p1.stderr.on('data', (chunk: Buffer) => (p1Out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => p1.on('exit', (code) => resolve(code)));
    await until(() => existsSync(join(work, 'stopping')) && isStopped(p1.pid as number), 'P1 to stop itself');
    const p2 = spawnSync(process.execPath, [bundle, spec, work, 'p2', mode], { encoding: 'utf8', timeout: 60_000 });
    p1.kill('SIGCONT');
    const code = await exited;
    expect(p2.status, p2.stdout + p2.stderr).toBe(0);
    return { effects: readFileSync(join(work, 'effects.log'), 'utf8').split('\n').filter(Boolean), p1: p1Out, p1Code: code, p2: p2.stdout };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function storedRun(store: RunStore): Promise<{ status: string; result: unknown }> {
  try {
    const run = await store.getRun('paused-order');
    return { status: run?.status ?? 'missing', result: run?.result };
  } finally {
    await store.close();
  }
}

const kinds = [
  {
    name: 'journal store',
    skip: false,
    make: () => {
      const dir = mkdtempSync(join(tmpdir(), 'gs-paused-store-'));
      return { spec: `journal:${dir}`, open: () => new JournalRunStore({ dir }), drop: () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'PostgreSQL',
    skip: !postgres.ok,
    make: () => {
      const schema = `gs_paused_${process.pid}_${schemas.length}`;
      schemas.push(schema);
      return { spec: `pg:${schema}`, open: () => new PostgresRunStore({ connection: PG_CONNECTION, schema }), drop: () => undefined };
    },
  },
];

describe.each(kinds)('a lease holder paused past its lease, on the $name', ({ skip, make }) => {
  it.skipIf(skip).each(['short', 'long', 'between'] as const)(
    '%s: after the takeover it runs no step and writes nothing; the run stays completed with the new holder’s result',
    async (mode) => {
      const store = make();
      try {
        const { effects, p1, p1Code, p2 } = await pausedHolder(store.spec, mode);
        expect(p2).toContain('RESULT paid+shipped');
        // P1 ran "pay" before it was paused, and nothing after: its lease was taken over.
        expect(effects.filter((line) => line.startsWith('p1 '))).toEqual(['p1 pay']);
        expect(effects.filter((line) => line.startsWith('p2 '))).toEqual(mode === 'between' ? ['p2 ship', 'p2 email'] : ['p2 pay', 'p2 ship', 'p2 email']);
        expect(await storedRun(store.open())).toEqual({ status: 'completed', result: 'paid+shipped' });
        // P1 stops with an error that says it stopped without an outcome (the run is not its to end).
        expect(p1).toContain('INTERRUPTED');
        expect(p1Code, p1).toBe(3);
      } finally {
        store.drop();
      }
    },
    60_000,
  );
});
