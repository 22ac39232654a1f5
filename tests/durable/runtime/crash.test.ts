import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleFixture } from '../../support/bundle-fixture.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { PG_CONNECTION, probePostgres } from '../../support/postgres-service.js';

const postgres = await probePostgres();

const FIXTURE = join(import.meta.dirname, 'fixtures', 'crash-run.ts');
// Bundled once (tests/support/bundle-fixture.ts): each child starts in about a second.
let bundle = '';

beforeAll(async () => {
  const bundled = await bundleFixture(FIXTURE, 'crash-run');
  bundle = bundled.file;
  return bundled.remove;
});

const EXPECTED = [...Array(20).keys()].reduce((sum, i) => sum + (i % 2 === 1 ? i : i * 10), 0);

function runChild(spec: string, work: string, kill: number | 'none'): { code: number | null; signal: string | null; stdout: string; stderr: string } {
  const child = spawnSync(process.execPath, [bundle, spec, work, String(kill)], { encoding: 'utf8', timeout: 60_000 });
  return { code: child.status, signal: child.signal, stdout: child.stdout, stderr: child.stderr };
}

function lines(path: string): number[] {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Kills the run at each of 20 points in turn (resuming each time), then lets it finish. */
function crashAndResume(spec: string): void {
  const work = mkdtempSync(join(tmpdir(), 'gs-crash-'));
  try {
    const kills: number[] = [];
    for (let point = 0; point < 20; point += 1) {
      const child = runChild(spec, work, point);
      expect(child.signal, `kill point ${point}: ${child.stderr}`).toBe('SIGKILL');
      kills.push(point);
    }
    const last = runChild(spec, work, 'none');
    expect(last.code, last.stderr).toBe(0);
    expect(last.stdout).toContain(`RESULT ${EXPECTED}`);

    // Every kill point is in a different step, so each kill interrupts at most one model call.
    const requests = lines(join(work, 'requests.log'));
    const inFlight = kills.filter((point) => point % 2 === 0).length;
    expect(requests.length).toBeLessThanOrEqual(10 + inFlight);
    expect(requests.length).toBeGreaterThanOrEqual(10);
    // A step ran again only when it was killed before it settled.
    const effects = lines(join(work, 'effects.log'));
    for (let step = 0; step < 20; step += 1) {
      const runs = effects.filter((s) => s === step).length;
      expect(runs, `side effects of step ${step}`).toBe(1 + kills.filter((point) => point === step).length);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

describe('a durable run killed with SIGKILL at 20 points', () => {
  it('on the journal store: same result, no settled step or completed call repeated', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-crash-store-'));
    try {
      crashAndResume(`journal:${dir}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);

  it.skipIf(!postgres.ok)('on PostgreSQL: same result, no settled step or completed call repeated', async () => {
    const schema = `gs_crash_${process.pid}`;
    try {
      crashAndResume(`pg:${schema}`);
    } finally {
      // The children leave their schema behind (they are killed): a shared test database keeps none.
      const pool = new pg.Pool(typeof PG_CONNECTION === 'string' ? { connectionString: PG_CONNECTION } : PG_CONNECTION);
      try {
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await pool.end();
      }
    }
  }, 240_000);
});
