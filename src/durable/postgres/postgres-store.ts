import { randomUUID } from 'node:crypto';
import { applyRunPatch } from '../store/apply-run-patch.js';
import { FSYNC_POLICIES, type FsyncPolicy } from '../store/fsync-policy.js';
import { encodeJson } from '../store/encode-json.js';
import { queryStatuses } from '../store/list-runs-query.js';
import { checkCall, checkSignal, checkStep, newRunRecord } from '../store/record-input.js';
import { requireName, requirePositiveInteger, requireRunId } from '../store/run-id.js';
import type { NewRun, RunPatch, RunRecord } from '../store/run-record.js';
import type { AppendedEvents, Lease, ListRunsQuery, LoadedRun, RunStore } from '../store/run-store.js';
import { RunExistsError, RunLeaseError, RunNotFoundError, RunStoreError } from '../store/run-store-errors.js';
import type { CallRecord, SignalRecord, StepRecord, StoredEvent } from '../store/stored-records.js';
import { UsageError } from '../../errors/groundswell-error.js';
import { loadPg } from './load-pg.js';
import { sqlAfter, sqlLimit } from './pg-bounds.js';
import { quoteName, refusedInput } from './pg-input-error.js';
import type { PgClientLike, PgPoolLike, PgResultLike } from './pg-like.js';
import { decodeText, encodeText } from './pg-text.js';
import { PostgresLease } from './postgres-lease.js';
import { migrateSchema } from './postgres-migrate.js';
import { requireSchemaName } from './postgres-schema.js';
import type { PostgresRunStoreOptions } from './postgres-store-options.js';

const FOREIGN_KEY_VIOLATION = '23503';
const UNDEFINED_TABLE = '42P01';
const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * The run store on PostgreSQL through `pg`, for runs shared by many processes and machines.
 * `migrate()` creates the tables (idempotent). Values are `json` columns holding the text the
 * store wrote; the lease is a conditional UPDATE of the run's row (decision 0033). Keys, names
 * and owners in `text` columns go through `encodeText` (decision 0041).
 */
export class PostgresRunStore implements RunStore {
  readonly schema: string;
  private readonly s: string;
  private readonly clock: { now(): number };
  private readonly fsync: FsyncPolicy;
  private readonly ownsPool: boolean;
  private readonly connection: Record<string, unknown> | undefined;
  private poolPromise: Promise<PgPoolLike> | undefined;
  private closed = false;

  constructor(options: PostgresRunStoreOptions) {
    if ((options?.pool === undefined) === (options?.connection === undefined)) {
      throw new UsageError('PostgresRunStore takes one of `pool` (a pg.Pool) and `connection` (a pg config or connection string).');
    }
    this.schema = requireSchemaName(options.schema ?? 'groundswell');
    this.s = `"${this.schema}"`;
    this.clock = options.clock ?? Date;
    if (options.fsync !== undefined && !FSYNC_POLICIES.includes(options.fsync)) {
      throw new UsageError('PostgresRunStore `fsync` must be "checkpoints", "every-record" or "off".');
    }
    this.fsync = options.fsync ?? 'checkpoints';
    this.ownsPool = options.pool === undefined;
    if (options.pool !== undefined) this.poolPromise = Promise.resolve(options.pool);
    else {
      const config = options.connection;
      if (typeof config !== 'string' && (typeof config !== 'object' || config === null)) {
        throw new UsageError('PostgresRunStore `connection` must be a pg config object or a connection string.');
      }
      this.connection = typeof config === 'string' ? { connectionString: config } : (config as Record<string, unknown>);
    }
  }

  /**
   * Creates the schema and tables if missing; safe to run from many processes at once. Where all
   * exist it creates nothing, so a role that may only use the tables can run it.
   */
  async migrate(): Promise<void> {
    await this.transaction((client) => migrateSchema(client, this.schema));
  }

  async createRun(run: NewRun): Promise<RunRecord> {
    const now = this.clock.now();
    const record = newRunRecord(run, now);
    const id = record.id;
    const result = await this.commit(
      `INSERT INTO ${this.s}.runs (id, root_name, status, created_at, record) VALUES ($1, $2, $3, $4, $5::json) ON CONFLICT (id) DO NOTHING`,
      [id, encodeText(record.rootName), record.status, now, encodeJson(record, `Run "${id}"`)],
      true,
    ).catch((error: unknown) => {
      throw refusedInput(error, `Run "${id}"`) ?? error;
    });
    if (result.rowCount !== 1) throw new RunExistsError(id);
    return record;
  }

  async updateRun(id: string, patch: RunPatch): Promise<RunRecord> {
    requireRunId(id);
    return this.transaction(async (client) => {
      const found = await client.query(`SELECT record FROM ${this.s}.runs WHERE id = $1 FOR UPDATE`, [id]);
      const row = found.rows[0];
      if (row === undefined) throw new RunNotFoundError(id);
      const next = applyRunPatch(row.record as RunRecord, patch ?? {}, this.clock.now());
      await client.query(`UPDATE ${this.s}.runs SET status = $2, record = $3::json WHERE id = $1`, [id, next.status, encodeJson(next, `Run "${id}"`)]);
      return next;
    });
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    requireRunId(id);
    const result = await this.query(`SELECT record FROM ${this.s}.runs WHERE id = $1`, [id]);
    return result.rows[0]?.record as RunRecord | undefined;
  }

  async listRuns(query: ListRunsQuery = {}): Promise<RunRecord[]> {
    requirePositiveInteger('listRuns limit', query.limit, true);
    if (query.rootName !== undefined && typeof query.rootName !== 'string') throw new UsageError('listRuns rootName must be a string.');
    const statuses = queryStatuses(query);
    const result = await this.query(
      `SELECT record FROM ${this.s}.runs WHERE ($1::text[] IS NULL OR status = ANY($1)) AND ($2::text IS NULL OR root_name = $2)
       ORDER BY created_at DESC, id DESC LIMIT $3`,
      [statuses ?? null, query.rootName === undefined ? null : encodeText(query.rootName), sqlLimit(query.limit)],
    );
    return result.rows.map((row) => row.record as RunRecord);
  }

  async loadRun(id: string): Promise<LoadedRun> {
    requireRunId(id);
    // One snapshot: a run being written meanwhile is read as of one moment.
    return this.transaction(async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const run = (await client.query(`SELECT record FROM ${this.s}.runs WHERE id = $1`, [id])).rows[0]?.record as RunRecord | undefined;
      if (run === undefined) throw new RunNotFoundError(id);
      const records = async (table: string): Promise<unknown[]> =>
        (await client.query(`SELECT record FROM ${this.s}.${table} WHERE run_id = $1 ORDER BY n`, [id])).rows.map((row) => row.record);
      const steps = (await records('steps')) as StepRecord[];
      const calls = (await records('calls')) as CallRecord[];
      const signals = (await records('signals')) as SignalRecord[];
      // Own properties even for a name like "__proto__", which an assignment would make the prototype.
      const data: Record<string, unknown> = Object.fromEntries(
        (await client.query(`SELECT name, entry FROM ${this.s}.data WHERE run_id = $1`, [id])).rows.map((row) => [
          decodeText(row.name as string),
          (row.entry as { value?: unknown }).value,
        ]),
      );
      const loaded: LoadedRun = { run, steps, calls, signals, data };
      const tree = (await client.query(`SELECT tree FROM ${this.s}.trees WHERE run_id = $1`, [id])).rows[0];
      if (tree !== undefined) loaded.tree = tree.tree;
      return loaded;
    });
  }

  async putStep(runId: string, step: StepRecord): Promise<boolean> {
    checkStep(step);
    return this.insertOnce('steps', runId, step.key, encodeJson(step, `Step "${step.key}"`), `Step key ${quoteName(step.key)}`);
  }

  async putCall(runId: string, call: CallRecord): Promise<boolean> {
    checkCall(call);
    return this.insertOnce('calls', runId, call.key, encodeJson(call, `Call "${call.key}"`), `Call key ${quoteName(call.key)}`);
  }

  async appendEvents(runId: string, events: readonly unknown[]): Promise<AppendedEvents> {
    requireRunId(runId);
    if (!Array.isArray(events)) throw new UsageError('appendEvents takes an array of events.');
    const texts = events.map((event, i) => encodeJson(event, `Event ${i} of run "${runId}"`));
    // One statement: numbers the batch from the run's counter and inserts it.
    const result = await this.commit(
      `WITH r AS (UPDATE ${this.s}.runs SET event_seq = event_seq + $2 WHERE id = $1 RETURNING event_seq - $2 AS base),
       ins AS (INSERT INTO ${this.s}.events (run_id, seq, event)
               SELECT $1, r.base + e.ord, e.ev FROM r, unnest($3::json[]) WITH ORDINALITY AS e(ev, ord))
       SELECT base FROM r`,
      [runId, texts.length, texts],
      false,
    );
    const row = result.rows[0];
    if (row === undefined) throw new RunNotFoundError(runId);
    const first = Number(row.base) + 1;
    return { first, last: first + texts.length - 1 };
  }

  async readEvents(runId: string, options: { after?: number; limit?: number } = {}): Promise<StoredEvent[]> {
    requireRunId(runId);
    requirePositiveInteger('readEvents limit', options.limit, true);
    const result = await this.query(`SELECT seq, event FROM ${this.s}.events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [
      runId,
      sqlAfter(options.after),
      sqlLimit(options.limit),
    ]);
    if (result.rows.length === 0) await this.requireRun(runId);
    return result.rows.map((row) => ({ seq: Number(row.seq), event: row.event }));
  }

  async putSignal(runId: string, signal: SignalRecord): Promise<void> {
    requireRunId(runId);
    checkSignal(signal);
    const text = encodeJson(signal, `Signal "${signal.name}"`);
    await this.write(runId, `Signal ${quoteName(signal.name)}`, `INSERT INTO ${this.s}.signals (run_id, record) VALUES ($1, $2::json)`, [runId, text], true);
  }

  async putData(runId: string, name: string, value: unknown): Promise<void> {
    requireRunId(runId);
    requireName('A data name', name);
    await this.write(
      runId,
      `Data name ${quoteName(name)}`,
      `INSERT INTO ${this.s}.data (run_id, name, entry) VALUES ($1, $2, $3::json) ON CONFLICT (run_id, name) DO UPDATE SET entry = EXCLUDED.entry`,
      [runId, encodeText(name), encodeJson({ value }, `Data "${name}"`)],
    );
  }

  async putTree(runId: string, tree: unknown): Promise<void> {
    requireRunId(runId);
    const text = encodeJson(tree, `The tree of run "${runId}"`);
    await this.write(runId, 'The tree', `INSERT INTO ${this.s}.trees (run_id, tree) VALUES ($1, $2::json) ON CONFLICT (run_id) DO UPDATE SET tree = EXCLUDED.tree`, [
      runId,
      text,
    ]);
  }

  async acquireLease(runId: string, owner: string, ttlMs: number): Promise<Lease> {
    requireRunId(runId);
    requireName('A lease owner', owner);
    requirePositiveInteger('A lease ttlMs', ttlMs);
    const now = this.clock.now();
    const expiresAt = now + ttlMs;
    // Free, expired or ours: take it. The same owner's live lease keeps its token (a renewal).
    const taken = await this.query(
      `UPDATE ${this.s}.runs SET lease_owner = $2, lease_expires_at = $4,
         lease_token = CASE WHEN lease_owner = $2 AND lease_expires_at > $5 THEN lease_token ELSE $3 END
       WHERE id = $1 AND (lease_owner IS NULL OR lease_expires_at <= $5 OR lease_owner = $2) RETURNING lease_token`,
      [runId, encodeText(owner), randomUUID(), expiresAt, now],
    );
    const token = taken.rows[0]?.lease_token as string | undefined;
    if (token === undefined) {
      const holder = await this.leaseHolder(runId);
      throw new RunLeaseError(runId, holder.owner, holder.expiresAt);
    }
    return new PostgresLease(runId, owner, token, expiresAt, ttlMs, () => this.clock.now(), {
      renew: async (t, at) =>
        (await this.query(`UPDATE ${this.s}.runs SET lease_expires_at = $3 WHERE id = $1 AND lease_token = $2`, [runId, t, at])).rowCount === 1,
      release: async (t) => {
        await this.query(`UPDATE ${this.s}.runs SET lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_token = $2`, [
          runId,
          t,
        ]);
      },
      holder: () => this.leaseHolder(runId),
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPool && this.poolPromise !== undefined) await (await this.poolPromise).end();
  }

  private async leaseHolder(runId: string): Promise<{ owner: string | undefined; expiresAt: number | undefined }> {
    const row = (await this.query(`SELECT lease_owner, lease_expires_at FROM ${this.s}.runs WHERE id = $1`, [runId])).rows[0];
    if (row === undefined) throw new RunNotFoundError(runId);
    const owner = row.lease_owner as string | null;
    return { owner: owner === null ? undefined : decodeText(owner), expiresAt: (row.lease_expires_at as number | null) ?? undefined };
  }

  private async insertOnce(table: 'steps' | 'calls', runId: string, key: string, text: string, what: string): Promise<boolean> {
    requireRunId(runId);
    const sql = `INSERT INTO ${this.s}.${table} (run_id, key, record) VALUES ($1, $2, $3::json) ON CONFLICT (run_id, key) DO NOTHING`;
    const result = await this.write(runId, what, sql, [runId, encodeText(key), text]);
    return result.rowCount === 1;
  }

  private async requireRun(runId: string): Promise<void> {
    const found = await this.query(`SELECT 1 FROM ${this.s}.runs WHERE id = $1`, [runId]);
    if (found.rows.length === 0) throw new RunNotFoundError(runId);
  }

  /**
   * A write for a run: a missing run (the foreign key) is a `RunNotFoundError`, input PostgreSQL
   * refuses a `RunStoreError` naming `what` and the run. A record (not a checkpoint) commits
   * asynchronously unless the policy is `every-record`.
   */
  private async write(runId: string, what: string, sql: string, values: unknown[], checkpoint = false): Promise<PgResultLike> {
    try {
      return await this.commit(sql, values, checkpoint);
    } catch (error) {
      if ((error as { code?: unknown }).code === FOREIGN_KEY_VIOLATION) throw new RunNotFoundError(runId, { cause: error });
      throw refusedInput(error, `${what} of run "${runId}"`) ?? error;
    }
  }

  /** One statement in its own transaction, committed as the fsync policy says. */
  private commit(sql: string, values: unknown[], checkpoint: boolean): Promise<PgResultLike> {
    const synchronous = this.fsync === 'every-record' || (checkpoint && this.fsync === 'checkpoints');
    if (synchronous) return this.query(sql, values);
    return this.transaction((client) => client.query(sql, values), true);
  }

  private async query(sql: string, values: unknown[]): Promise<PgResultLike> {
    const pool = await this.pool();
    try {
      return await pool.query(sql, values);
    } catch (error) {
      throw this.explain(error);
    }
  }

  private async transaction<T>(body: (client: PgClientLike) => Promise<T>, asyncCommit = this.fsync === 'off'): Promise<T> {
    const client = await (await this.pool()).connect();
    try {
      // One round trip for both (no parameters: the simple protocol takes several statements).
      await client.query(asyncCommit ? 'BEGIN; SET LOCAL synchronous_commit TO OFF' : 'BEGIN');
      const result = await body(client);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      throw this.explain(error);
    }
  }

  /** A missing table means `migrate()` was never run here; a missing privilege needs a GRANT: say so. */
  private explain(error: unknown): unknown {
    const code = (error as { code?: unknown }).code;
    if (code === UNDEFINED_TABLE) {
      return new RunStoreError(`The run store tables are missing in schema "${this.schema}": call store.migrate() once first.`, { cause: error });
    }
    if (code === INSUFFICIENT_PRIVILEGE) {
      return new RunStoreError(
        `The database role may not use the run store tables in schema "${this.schema}" (${(error as Error).message}): ` +
          'grant it USAGE on the schema and SELECT, INSERT, UPDATE, DELETE on its tables.',
        { cause: error },
      );
    }
    return error;
  }

  private pool(): Promise<PgPoolLike> {
    if (this.closed) return Promise.reject(new RunStoreError(`The PostgreSQL run store (schema "${this.schema}") is closed.`));
    this.poolPromise ??= loadPg().then((pg) => new pg.Pool(this.connection));
    return this.poolPromise;
  }
}
