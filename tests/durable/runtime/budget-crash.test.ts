import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleFixture } from '../../support/bundle-fixture.js';
import { PG_CONNECTION, probePostgres } from '../../support/postgres-service.js';

const postgres = await probePostgres();
const FIXTURE = join(import.meta.dirname, 'fixtures', 'budget-crash-run.ts');
let bundle = '';

beforeAll(async () => {
  const bundled = await bundleFixture(FIXTURE, 'budget-crash');
  bundle = bundled.file;
  return bundled.remove;
});

/**
 * Runs the fixture in a new process until one ends without being killed (at most 5): each run's
 * request kills it mid-flight. Returns the requests the model received and the last run's output.
 */
function crashUntilSettled(spec: string): { requests: number; processes: number; last: string } {
  const work = mkdtempSync(join(tmpdir(), 'gs-budget-crash-'));
  try {
    let last = '';
    let processes = 0;
    for (; processes < 5; processes += 1) {
      const child = spawnSync(process.execPath, [bundle, spec, work], { encoding: 'utf8', timeout: 60_000 });
      last = child.stdout + child.stderr;
      if (child.signal !== 'SIGKILL') break;
    }
    const requests = readFileSync(join(work, 'requests.log'), 'utf8').split('\n').filter(Boolean).length;
    return { requests, processes, last };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

describe('a durable run killed while its model request is in flight, under modelRequests: 2', () => {
  it('on the journal store: the requests sent before each crash count, so the server receives at most 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-budget-crash-store-'));
    try {
      const { requests, last } = crashUntilSettled(`journal:${dir}`);
      expect(requests).toBe(2);
      expect(last).toContain('REFUSED');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it.skipIf(!postgres.ok)('on PostgreSQL: the requests sent before each crash count, so the server receives at most 2', async () => {
    const schema = `gs_budget_crash_${process.pid}`;
    try {
      const { requests, last } = crashUntilSettled(`pg:${schema}`);
      expect(requests).toBe(2);
      expect(last).toContain('REFUSED');
    } finally {
      const client = new pg.Client(typeof PG_CONNECTION === 'string' ? { connectionString: PG_CONNECTION } : PG_CONNECTION);
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  }, 120_000);
});
