/**
 * Example 15: child workflows on worker processes, with DBOS Transact on PostgreSQL.
 *
 * - one registry, `dbosWorkflows(DBOS, { Research, Topic })`, is the same code in every process:
 *   each registers it, then starts DBOS with `dbosWorker` or `dbosLauncher`
 * - two worker processes (`dbosWorker`) run children of the `topics` queue (at most 2 each at a
 *   time); the launcher (`dbosLauncher`: it takes no children) runs `Research`, whose step
 *   "research topics" queues one `Topic` child per topic with `dbosChildren(queue, Topic, inputs)`
 * - each child's step and agent call is a DBOS step (checkpointed: a worker killed mid-run would
 *   have its workflows recovered by DBOS without repeating them); its events reach the launcher's
 *   observers as it runs, and its tree is grafted under the step that queued it
 * - the launcher prints the result, which worker ran each topic, and the one tree
 * - with Redis (GROUNDSWELL_REDIS_URL, else 127.0.0.1:6379) every process shares one prompt cache
 *   (`RedisCacheStore`): the launcher runs `Research` a second time and the workers answer every
 *   topic from the cache the first run filled, with no model request; without Redis it skips that part
 *
 * Needs PostgreSQL (GROUNDSWELL_PG_URL, else the local socket /var/run/postgresql, database
 * groundswell_test): the example creates and drops a database of its own, and a Redis key prefix. Without a server it
 * prints why and skips. Offline otherwise: each process has its own scripted model.
 * Run: npx tsx examples/15-workers-dbos.ts
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { userInfo } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, WorkflowTreeDebugger, type Workflow } from 'groundswell';
import { dbosChildren, dbosLauncher, dbosWorker, dbosWorkflows } from 'groundswell/dbos';
import { RedisCacheStore } from 'groundswell/redis';
import { json, ScriptedModel, userText } from 'groundswell/testing';

const role = process.env.GS_EXAMPLE_ROLE;
const executorID = process.env.GS_EXAMPLE_EXECUTOR ?? 'launcher';
const TOPICS = ['queues', 'leases', 'backpressure', 'idempotency', 'retries', 'sharding'];

// ---- the application: the same in the launcher and in every worker -------------------------------

const Note = z.object({ summary: z.string() });
const model = new ScriptedModel((request) => json({ summary: `notes on ${userText(request).replace('Research: ', '')}` }, { delayMs: 50 }));
// The shared cache, when the example found Redis (GS_EXAMPLE_REDIS); one key prefix per example run.
const redisUrl = process.env.GS_EXAMPLE_REDIS;
const cache = redisUrl ? new RedisCacheStore({ url: redisUrl, prefix: `gs-example15:${process.env.GS_EXAMPLE_DB ?? ''}:` }) : undefined;
const researcher = createAgent({ name: 'researcher', client: model.client(), ...(cache ? { enableCache: true, cache } : {}) });
// At most 2 children at a time on each worker.
const queue = { name: 'topics', workerConcurrency: 2 };

const Topic = (input: { topic: string }) =>
  createWorkflow({ name: 'Topic' }, (ctx) =>
    ctx.step(`read about ${input.topic}`, async () => {
      const note = await researcher.prompt(createPrompt({ user: `Research: ${input.topic}`, responseFormat: Note }));
      return { topic: input.topic, summary: note.summary, worker: executorID };
    }),
  );

const flows = dbosWorkflows(DBOS, {
  Research: (input: { topics: string[] }) =>
    createWorkflow({ name: 'Research' }, async (ctx) => {
      // `Topic` names the child: its input and result types come with it.
      const notes = await ctx.step('research topics', () => dbosChildren(queue, Topic, input.topics.map((topic) => ({ topic }))));
      return ctx.step('combine', () => notes.map((note) => `${note.topic} (${note.worker}): ${note.summary}`));
    }),
  Topic,
});

// Each process its own executor id: a restarted worker with the same id recovers its workflows.
const processSettings = () => ({
  name: 'groundswell-example-15',
  systemDatabaseUrl: process.env.GS_EXAMPLE_DB as string,
  executorID,
  queues: [queue],
});

async function worker(): Promise<void> {
  await dbosWorker(DBOS, processSettings());
  console.log('ready');
  // Until the example stops it (a real worker runs until its supervisor stops it).
  process.on('SIGTERM', () => void Promise.all([DBOS.shutdown(), cache?.close()]).then(() => process.exit(0)));
}

async function launcher(): Promise<void> {
  await dbosLauncher(DBOS, processSettings());
  let root: Workflow<unknown> | undefined;
  const childSteps: string[] = [];
  const lines = await flows.run(
    'Research',
    { topics: TOPICS },
    {
      onWorkflow: (workflow) => {
        root = workflow;
        // Events of children on other processes arrive here as they happen.
        workflow.addObserver({ onEvent: (event) => event.type === 'stepStart' && event.name.startsWith('read about') && childSteps.push(event.name) });
      },
    },
  );
  console.log(lines.join('\n'));
  console.log(`\nthe root's observer saw ${childSteps.length} child steps start on the workers`);
  console.log(new WorkflowTreeDebugger(root as Workflow<unknown>).toTreeString());
  if (redisUrl !== undefined) {
    // A second run: the workers find every answer in the Redis cache the first run filled.
    let hits = 0;
    let asked = 0;
    await flows.run('Research', { topics: TOPICS }, {
      onWorkflow: (workflow) => void workflow.addObserver({
        onEvent: (event) => {
          if (event.type === 'cacheHit') hits += 1;
          if (event.type === 'modelRequest') asked += 1;
        },
      }),
    });
    console.log(`second run, shared cache on Redis: ${hits} of ${TOPICS.length} topics from the cache, ${asked} model requests`);
  } else {
    console.log('Redis is not reachable: skipped the shared-cache run (set GROUNDSWELL_REDIS_URL or start redis-server).');
  }
  await DBOS.shutdown();
}

// ---- the example itself: a database, two workers and a launcher, as child processes -----------------

function pgConfig(): pg.ClientConfig {
  const url = process.env.GROUNDSWELL_PG_URL;
  return url ? { connectionString: url } : { host: '/var/run/postgresql', database: 'groundswell_test', user: process.env.PGUSER ?? userInfo().username };
}

function systemDatabaseUrl(name: string): string {
  const url = process.env.GROUNDSWELL_PG_URL;
  if (url) {
    const parsed = new URL(url);
    parsed.pathname = `/${name}`;
    return parsed.toString();
  }
  return `postgresql://${encodeURIComponent(process.env.PGUSER ?? userInfo().username)}@localhost/${name}?host=%2Fvar%2Frun%2Fpostgresql`;
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ ...pgConfig(), connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query(sql);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function start(processRole: string, executor: string, db: string, redis: string | undefined): ChildProcess {
  const file = fileURLToPath(import.meta.url);
  return spawn(process.execPath, ['--import', import.meta.resolve('tsx'), file], {
    env: { ...process.env, GS_EXAMPLE_ROLE: processRole, GS_EXAMPLE_EXECUTOR: executor, GS_EXAMPLE_DB: db, ...(redis ? { GS_EXAMPLE_REDIS: redis } : {}) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

function readyOrExit(child: ChildProcess, echo: boolean): Promise<number | null> {
  return new Promise((resolve) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (echo) process.stdout.write(chunk);
      else if (chunk.toString().includes('ready')) resolve(0);
    });
    child.on('exit', (code) => resolve(code));
  });
}

/** The Redis URL to share the cache on, when a server answers there. */
async function reachableRedis(): Promise<string | undefined> {
  const url = process.env.GROUNDSWELL_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const probe = new RedisCacheStore({ url, prefix: 'gs-example15:probe:' });
  try {
    await probe.bustPrefix('');
    return url;
  } catch {
    return undefined;
  } finally {
    await probe.close();
  }
}

async function main(): Promise<void> {
  const database = `gs_example15_${process.pid}`;
  try {
    await admin(`create database ${database}`);
  } catch (error) {
    console.log(`Skipped: PostgreSQL is not reachable (${error instanceof Error ? error.message : String(error)}); set GROUNDSWELL_PG_URL or start a local server.`);
    return;
  }
  const url = systemDatabaseUrl(database);
  const redis = await reachableRedis();
  const workers: ChildProcess[] = [];
  try {
    // One worker first: its launch creates DBOS's tables; then the second and the launcher.
    for (const id of ['worker-1', 'worker-2']) {
      const child = start('worker', id, url, redis);
      workers.push(child);
      if ((await readyOrExit(child, false)) !== 0) throw new Error(`${id} did not start`);
    }
    const code = await readyOrExit(start('launcher', 'launcher', url, redis), true);
    if (code !== 0) throw new Error(`the launcher exited with code ${String(code)}`);
  } finally {
    await Promise.all(workers.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : (child.once('exit', resolve), child.kill('SIGTERM'))))));
    await admin(`drop database if exists ${database} with (force)`);
  }
}

if (role === 'worker') await worker();
else if (role === 'launcher') await launcher();
else await main();
