import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resume } from 'groundswell';
import { JournalRunStore, RunLeaseError, type RunStore, type StepRecord } from 'groundswell/durable';
import { PostgresRunStore } from 'groundswell/postgres';
import { bundleFixture } from '../../support/bundle-fixture.js';
import { PG_CONNECTION } from '../../support/postgres-service.js';
import { RUN_STORE_KINDS, type OpenedStore } from '../../support/run-store-kinds.js';
import { localProcesses } from '../../../src/durable/store/holder-process.js';
import { heldWorkflow } from './fixtures/held-workflow.js';

// Every holder here takes a 10-minute lease, so a resume that got the run did not wait it out.

let bundle = '';
beforeAll(async () => {
  const bundled = await bundleFixture(join(import.meta.dirname, 'fixtures', 'takeover-holder-run.ts'), 'takeover-holder-run');
  bundle = bundled.file;
  return bundled.remove;
});

const pgConfig: pg.ClientConfig = typeof PG_CONNECTION === 'string' ? { connectionString: PG_CONNECTION } : PG_CONNECTION;

async function sql(text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client(pgConfig);
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

function specOf(store: RunStore): string {
  if (store instanceof JournalRunStore) return `journal:${store.dir}`;
  return `pg:${(store as PostgresRunStore).schema}`;
}

/** A child process running the run "held" in step "hold", with its lease. */
interface Holder {
  readonly child: ChildProcessWithoutNullStreams;
  /** How its run ended: "ended RunInterruptedError RunFencedError", say. */
  readonly ended: Promise<string>;
  readonly closed: Promise<string | null>;
}

async function startHolder(store: RunStore): Promise<Holder> {
  const child = spawn(process.execPath, [bundle, specOf(store), 'held'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const closed = new Promise<string | null>((resolve) => child.on('close', (_code, signalName) => resolve(signalName)));
  let holding = (): void => undefined;
  let ended = (_line: string): void => undefined;
  const endedLine = new Promise<string>((resolve) => (ended = resolve));
  const held = new Promise<void>((resolve, reject) => {
    holding = resolve;
    void closed.then(() => reject(new Error(`the holder ended: ${stdout}${stderr}`)));
  });
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    if (stdout.includes('holding\n')) holding();
    const end = /^ended .*$/m.exec(stdout);
    if (end !== null) ended(end[0]);
  });
  await held;
  return { child, ended: endedLine, closed };
}

/** The resume's workflows: step "hold" here returns "parent" once `gate` opens, and calls `entered` first. */
function workflowsHere(gate: Promise<void>, entered: () => void = () => undefined) {
  return {
    Held: (_input: unknown, context: { runId: string; store: RunStore }) =>
      heldWorkflow(context.store, context.runId, async () => {
        entered();
        await gate;
        return 'parent';
      }),
  };
}

/** The step values stored for run "held", read from the database (or the journal files) by a reader of its own. */
async function storedValues(store: RunStore): Promise<unknown[]> {
  if (store instanceof PostgresRunStore) {
    const rows = await sql(`SELECT record FROM "${store.schema}".steps WHERE run_id = 'held' ORDER BY n`);
    return rows.rows.map((row: { record: StepRecord }) => row.record.value);
  }
  const reader = new JournalRunStore({ dir: (store as JournalRunStore).dir });
  try {
    return (await reader.loadRun('held')).steps.map((step) => step.value);
  } finally {
    await reader.close();
  }
}

/** A pid no process has: a child that already exited (and was reaped). */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

/** Rewrites what the store recorded of the holder's process for run `runId` (the PostgreSQL row, or the journal's lease file). */
async function editHolder(store: RunStore, runId: string, change: Record<string, unknown>): Promise<void> {
  if (store instanceof PostgresRunStore) {
    await sql(`UPDATE "${store.schema}".runs SET lease_process = (lease_process::jsonb || $2::jsonb)::json WHERE id = $1`, [runId, JSON.stringify(change)]);
    return;
  }
  const holders = join((store as JournalRunStore).dir, runId, 'holders');
  const newest = Math.max(...readdirSync(holders).filter((name) => /^\d+$/.test(name)).map(Number));
  const file = join(holders, String(newest), 'lease.json');
  writeFileSync(file, JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as object), ...change }));
}

describe.each(RUN_STORE_KINDS)('taking over a run\'s lease on the $name', (kind) => {
  let opened: OpenedStore | undefined;
  let store: RunStore;
  let holder: Holder | undefined;
  beforeEach(async (context) => {
    if (!kind.available) {
      context.skip();
      return;
    }
    opened = await kind.open();
    store = opened.store;
  });
  afterEach(async () => {
    holder?.child.kill('SIGKILL');
    await holder?.closed;
    holder = undefined;
    await opened?.close();
    opened = undefined;
  });

  it('a holder SIGKILLed on this machine is taken over at once, though its lease runs 10 more minutes', async () => {
    holder = await startHolder(store);
    expect((await store.leaseOf?.('held'))?.state).toBe('alive');
    holder.child.kill('SIGKILL');
    expect(await holder.closed).toBe('SIGKILL');
    const lease = await store.leaseOf?.('held');
    expect(lease?.state).toBe('exited');
    expect(lease?.expiresAt).toBeGreaterThan(Date.now() + 500_000);
    expect(await resume('held', { store, workflows: workflowsHere(Promise.resolve()) })).toBe('parent');
    expect(await storedValues(store)).toEqual(['first', 'parent']);
  }, 60_000);

  it('a live holder is taken over only with takeOver, and its next write is then refused', async () => {
    holder = await startHolder(store);
    const refused = await resume('held', { store, workflows: workflowsHere(Promise.resolve()) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RunLeaseError);

    let open = (): void => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let entered = (): void => undefined;
    const inHold = new Promise<void>((resolve) => (entered = resolve));
    const resumed = resume('held', { store, workflows: workflowsHere(gate, entered), takeOver: true });
    await Promise.race([inHold, resumed]);
    // The old holder settles "hold" now, before the new one does: fencing alone keeps it out.
    holder.child.stdin.write('go\n');
    expect(await holder.ended).toBe('ended RunInterruptedError RunFencedError');
    expect(await storedValues(store)).toEqual(['first']);
    open();
    expect(await resumed).toBe('parent');
    expect(await storedValues(store)).toEqual(['first', 'parent']);
    expect((await store.getRun('held'))?.status).toBe('completed');
  }, 60_000);

  it('a holder in this very process is not taken over without takeOver', async () => {
    await store.createRun({ id: 'own', rootName: 'W' });
    const mine = await store.acquireLease('own', 'first-owner', 600_000);
    await expect(store.acquireLease('own', 'second-owner', 600_000)).rejects.toBeInstanceOf(RunLeaseError);
    const taken = await store.acquireLease('own', 'second-owner', 600_000, { takeOver: true });
    expect(taken.token).not.toBe(mine.token);
    await expect(store.putData('own', 'x', 1, mine)).rejects.toBeInstanceOf(RunLeaseError);
    await expect(mine.renew()).rejects.toBeInstanceOf(RunLeaseError);
    expect((await store.loadRun('own')).data).toEqual({});
  });

  it('a dead pid recorded with another host name, boot id or pid namespace is never taken over automatically', async () => {
    await store.createRun({ id: 'r', rootName: 'W' });
    await store.acquireLease('r', 'holder', 600_000);
    const here = { ...localProcesses.self(), pid: deadPid() };
    for (const elsewhere of [{ host: 'elsewhere.example' }, { bootId: '00000000-0000-0000-0000-000000000000' }, { pidNamespace: 'pid:[1]' }]) {
      await editHolder(store, 'r', { ...here, ...elsewhere });
      expect((await store.leaseOf?.('r'))?.state).toBe('alive');
      await expect(store.acquireLease('r', 'rescuer', 600_000)).rejects.toBeInstanceOf(RunLeaseError);
    }
    // The same dead pid on this machine: taken at once.
    await editHolder(store, 'r', here);
    expect((await store.leaseOf?.('r'))?.state).toBe('exited');
    expect((await store.acquireLease('r', 'rescuer', 600_000)).owner).toBe('rescuer');
  });

  it.runIf(process.platform === 'linux')('a live pid that started after the holder (a reused pid) is taken over; the holder itself is not', async () => {
    await store.createRun({ id: 'r', rootName: 'W' });
    await store.acquireLease('r', 'holder', 600_000);
    // This process is alive, with its recorded start time: alive. Another start time: its pid was reused.
    await expect(store.acquireLease('r', 'rescuer', 600_000)).rejects.toBeInstanceOf(RunLeaseError);
    await editHolder(store, 'r', { startedAt: '1' });
    expect((await store.acquireLease('r', 'rescuer', 600_000)).owner).toBe('rescuer');
  });
});
