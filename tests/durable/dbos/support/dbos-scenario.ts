import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createDbosDatabase, type DbosDatabase } from './dbos-database.js';
import { startFixture, type FixtureProcess } from './fixture-process.js';
import { startModelServer, type ModelServer } from './model-server.js';
import { watchProgress, type Fingerprint } from './progress.js';

export type FixtureRole = 'launcher' | 'worker' | 'recover' | 'cancel' | 'budget' | 'budget-recover' | 'headroom' | 'shared';

export interface DbosScenarioOptions {
  /** The bundled fixture app (fixtures/dbos-app.ts). */
  bundle: string;
  /** Names the test's database. */
  label: string;
  children: number;
  workerConcurrency: number;
  /** How long the model server takes to answer: keeps calls in flight, it is not a wait. */
  modelDelayMs: number;
  cancelAfter?: number;
  /** Runs as each model request arrives, with the worker that sent it and its count so far. */
  onModelRequest?: (worker: string, count: number, requests: ModelServer['requests']) => void;
}

export interface DbosScenario {
  readonly db: DbosDatabase;
  /** The directory the fixtures append their effects.log to. */
  readonly work: string;
  readonly server: ModelServer;
  /** Starts a fixture process with the scenario's settings; it is killed when the scenario ends. */
  start(role: FixtureRole, executorId: string): FixtureProcess;
  /** `promise`, waited for while the scenario moves (see `dbosProgress`); fails after a stall naming `what`. */
  until<T>(what: string, promise: Promise<T>): Promise<T>;
  /** The lines of effects.log: one per completed side effect. */
  effects(): string[];
  /** DBOS's workflow states, with their counts, of the workflows whose id starts with `prefix`. */
  workflowStates(prefix: string): Promise<Array<[string, number]>>;
}

function readEffects(work: string): string[] {
  try {
    return readFileSync(join(work, 'effects.log'), 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * What moves while a scenario runs: each process's output and exit, model requests received and
 * answered, effects written, and DBOS's system database (its schema while it migrates, then the
 * workflows' states and the steps and stream entries they record). Not CPU time or DBOS's polling
 * queries, which go on in a stuck run too.
 */
async function dbosProgress(client: pg.Client, processes: ReadonlyMap<string, FixtureProcess>, server: ModelServer, work: string): Promise<Fingerprint> {
  const seen: Record<string, number | string> = {};
  for (const [name, started] of processes) seen[name] = started.progress();
  const { total, inFlight } = server.requests;
  seen['model requests'] = total;
  seen['model answers'] = total - [...inFlight.values()].reduce((a, b) => a + b, 0);
  seen.effects = readEffects(work).length;
  const schema = await client.query<{ columns: number; tables: boolean }>(
    `select count(*)::int as columns, to_regclass('dbos.streams') is not null and to_regclass('dbos.operation_outputs') is not null as tables
       from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'dbos' and a.attnum > 0`,
  );
  seen['dbos schema columns'] = schema.rows[0]?.columns ?? 0;
  if (schema.rows[0]?.tables === true) {
    const states = await client.query<{ status: string; count: number; updated: string | null }>(
      `select status, count(*)::int as count, max(updated_at)::text as updated from dbos.workflow_status group by status order by status`,
    );
    for (const row of states.rows) seen[`workflows ${row.status}`] = `${row.count} (last update ${row.updated ?? '-'})`;
    const recorded = await client.query<{ steps: number; streamed: number }>(
      `select (select count(*) from dbos.operation_outputs)::int as steps, (select count(*) from dbos.streams)::int as streamed`,
    );
    seen['dbos steps recorded'] = recorded.rows[0]?.steps ?? 0;
    seen['dbos stream entries'] = recorded.rows[0]?.streamed ?? 0;
  }
  return seen;
}

/**
 * Runs `body` against a fresh DBOS database, a work directory and a model server, starting
 * fixture processes as it asks; afterwards kills them and removes all of it. Every wait, the
 * set-up's and clean-up's too, fails on a stall rather than after a fixed time.
 */
export async function withDbosScenario<T>(options: DbosScenarioOptions, body: (scenario: DbosScenario) => Promise<T>): Promise<T> {
  // Set-up and clean-up show nothing while they run: a single query or close that stalls a whole window is stuck.
  const quiet = watchProgress();
  const db = await quiet.until(`a database for ${options.label}`, createDbosDatabase(options.label));
  const work = mkdtempSync(join(tmpdir(), 'gs-dbos-'));
  const processes = new Map<string, FixtureProcess>();
  let server: ModelServer | undefined;
  let client: pg.Client | undefined;
  try {
    const { onModelRequest } = options;
    server = await quiet.until(
      'the model server',
      startModelServer(options.modelDelayMs, onModelRequest === undefined ? undefined : (worker, count) => onModelRequest(worker, count, (server as ModelServer).requests)),
    );
    const probeClient = new pg.Client({ connectionString: db.url });
    client = probeClient;
    // Dropping the database at the end ends this connection: not a failure.
    probeClient.on('error', () => undefined);
    await quiet.until('a connection to the DBOS database', probeClient.connect());
    const modelServer = server;
    const watch = watchProgress(() => dbosProgress(probeClient, processes, modelServer, work));
    const scenario: DbosScenario = {
      db,
      work,
      server,
      start(role, executorId) {
        const started = startFixture(options.bundle, {
          role,
          executorId,
          url: db.url,
          modelUrl: modelServer.url,
          work,
          children: options.children,
          workerConcurrency: options.workerConcurrency,
          cancelAfter: options.cancelAfter,
        });
        // A restarted executor id gets its own entry, so the dead process's last state stays visible.
        let name = `${role} ${executorId}`;
        for (let again = 2; processes.has(name); again += 1) name = `${role} ${executorId} (start ${again})`;
        processes.set(name, started);
        return started;
      },
      until: (what, promise) => watch.until(what, promise),
      effects: () => readEffects(work),
      async workflowStates(prefix) {
        const { rows } = await watch.until(
          `the states of ${prefix}* workflows`,
          probeClient.query<{ status: string; count: number }>(
            `select status, count(*)::int as count from dbos.workflow_status where workflow_uuid like $1 group by status order by status`,
            [`${prefix}%`],
          ),
        );
        return rows.map((row): [string, number] => [row.status, row.count]);
      },
    };
    return await body(scenario);
  } finally {
    for (const started of processes.values()) started.child.kill('SIGKILL');
    await quiet.until('the fixture processes to exit after SIGKILL', Promise.all([...processes.values()].map((started) => started.exited)));
    if (client !== undefined) await quiet.until('the probe connection to close', client.end()).catch(() => undefined);
    if (server !== undefined) await quiet.until('the model server to close', server.close());
    await quiet.until(`the database for ${options.label} to be dropped`, db.drop());
    rmSync(work, { recursive: true, force: true });
  }
}
