import { createHash, randomUUID } from 'node:crypto';
import { applyRunPatch } from '../store/apply-run-patch.js';
import { FSYNC_POLICIES, type FsyncPolicy } from '../store/fsync-policy.js';
import { encodeJson } from '../store/encode-json.js';
import { encodeEvents } from '../store/encode-events.js';
import { queryStatuses } from '../store/list-runs-query.js';
import { checkCall, checkSignal, checkStep, newRunRecord } from '../store/record-input.js';
import { requireName, requirePositiveInteger, requireRunId } from '../store/run-id.js';
import type { NewRun, RunPatch, RunRecord } from '../store/run-record.js';
import type { AcquireLeaseOptions, AppendedEvents, Lease, ListRunsQuery, LoadedRun, RunStore, SettledStep } from '../store/run-store.js';
import { RunExistsError, RunLeaseError, RunNotFoundError, RunStoreError } from '../store/run-store-errors.js';
import { fencedError } from '../store/fenced-error.js';
import { holderIsGone, localProcesses, parseHolderProcess } from '../store/holder-process.js';
import type { CallRecord, SignalRecord, StepRecord, StoredEvent } from '../store/stored-records.js';
import { UsageError } from '../../errors/groundswell-error.js';
import { loadPg } from './load-pg.js';
import type { LeaseHolder } from '../store/run-store.js';
import { sqlAfter, sqlLimit } from './pg-bounds.js';
import { quoteName, refusedInput } from './pg-input-error.js';
import type { PgClientLike, PgPoolLike, PgResultLike } from './pg-like.js';
import { decodeText, encodeText } from './pg-text.js';
import { listenForPoolErrors, listenWhileCheckedOut } from './pg-error-listeners.js';
import { connectionLoss } from './pg-connection-errors.js';
import { holdsRecord, readBackSettle } from './pg-read-back.js';
import { lostAtCommit, Resend, sendWithResend } from './pg-resend.js';
import { PostgresLease } from './postgres-lease.js';
import { migrateSchema } from './postgres-migrate.js';
import { requireSchemaName } from './postgres-schema.js';
import type { PostgresRunStoreOptions } from './postgres-store-options.js';

const FOREIGN_KEY_VIOLATION = '23503';
const UNIQUE_VIOLATION = '23505';
/** Rounds of look-and-take when a gone holder's lease is contested by other resumers. */
const TAKEOVER_ATTEMPTS = 4;
const UNDEFINED_TABLE = '42P01';
const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * How a statement commits asynchronously without a round trip of its own: `SET LOCAL` as a
 * function, evaluated in a row the statement writes (so it runs exactly when something is
 * written), and in force until the statement's own transaction commits (decision 0052).
 */
const ASYNC_COMMIT = `set_config('synchronous_commit', 'off', true)`;
/** The same place in a synchronous statement: the session's setting, left as it is. */
const SESSION_COMMIT = `current_setting('synchronous_commit')`;

type Statement = (commitMode: string) => string;

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
  private readonly prepare: boolean;
  // The name each write statement is prepared under (a handful per store: statement × commit mode).
  private readonly statementNames = new Map<string, string>();
  /** A settle with events: plain insert of the step (the usual case), and the form for a key already stored. */
  private readonly settleNew: Statement;
  private readonly settleKnown: Statement;
  private readonly connection: Record<string, unknown> | undefined;
  private poolPromise: Promise<PgPoolLike> | undefined;
  private closed = false;

  constructor(options: PostgresRunStoreOptions) {
    if ((options?.pool === undefined) === (options?.connection === undefined)) {
      throw new UsageError('PostgresRunStore takes one of `pool` (a pg.Pool) and `connection` (a pg config or connection string).');
    }
    this.schema = requireSchemaName(options.schema ?? 'groundswell');
    this.s = `"${this.schema}"`;
    // A plain INSERT of the step: when its key is new (every settle but a repeated one) it skips the
    // speculative insertion ON CONFLICT costs (an index probe and a WAL record more). A taken key
    // fails the whole statement, nothing written, and the settle is sent again as `settleKnown`.
    this.settleNew = textPerMode(
      (mode) => `WITH ${this.eventBatch(mode, '$6')},
         st AS (INSERT INTO ${this.s}.steps (run_id, key, record) SELECT $1, $4, $5::json FROM r)
         SELECT base, commit_mode, true AS written FROM r`,
    );
    this.settleKnown = textPerMode(
      (mode) => `WITH ${this.eventBatch(mode, '$6')},
         st AS (INSERT INTO ${this.s}.steps (run_id, key, record) SELECT $1, $4, $5::json FROM r ON CONFLICT (run_id, key) DO NOTHING RETURNING 1)
         SELECT base, commit_mode, EXISTS (SELECT 1 FROM st) AS written FROM r`,
    );
    this.clock = options.clock ?? Date;
    if (options.fsync !== undefined && !FSYNC_POLICIES.includes(options.fsync)) {
      throw new UsageError('PostgresRunStore `fsync` must be "checkpoints", "every-record" or "off".');
    }
    this.fsync = options.fsync ?? 'every-record';
    if (options.prepare !== undefined && typeof options.prepare !== 'boolean') throw new UsageError('PostgresRunStore `prepare` must be a boolean.');
    this.prepare = options.prepare ?? true;
    this.ownsPool = options.pool === undefined;
    if (options.pool !== undefined) this.poolPromise = Promise.resolve(listenForPoolErrors(options.pool));
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
    await this.transaction((client) => migrateSchema(client, this.schema), true);
  }

  async createRun(run: NewRun): Promise<RunRecord> {
    const now = this.clock.now();
    const record = newRunRecord(run, now);
    const id = record.id;
    const text = encodeJson(record, `Run "${id}"`);
    const resend = Resend.repeatable();
    const result = await this.commit(
      (mode) =>
        `INSERT INTO ${this.s}.runs (id, root_name, status, created_at, record) VALUES ($1, $2, $3, $4, $5::json) ON CONFLICT (id) DO NOTHING RETURNING ${mode}`,
      [id, encodeText(record.rootName), record.status, now, text],
      true,
      resend,
    ).catch((error: unknown) => {
      throw refusedInput(error, `Run "${id}"`) ?? error;
    });
    // Sent again after a lost answer, the id reads as taken when the first send created it.
    const created = result.rowCount === 1 || (resend.sentAgainAfterLoss && (await holdsRecord(this.read, this.schema, 'runs', id, id, text)));
    if (!created) throw new RunExistsError(id);
    return record;
  }

  async updateRun(id: string, patch: RunPatch, fence?: Lease): Promise<RunRecord> {
    requireRunId(id);
    return this.transaction(async (client) => {
      // The row lock holds a takeover (an UPDATE of the lease) off until this commits.
      const found = await client.query(`SELECT record, lease_token, lease_owner, lease_expires_at FROM ${this.s}.runs WHERE id = $1 FOR UPDATE`, [id]);
      const row = found.rows[0];
      if (row === undefined) throw new RunNotFoundError(id);
      if (fence !== undefined && row.lease_token !== fence.token) throw fencedError(id, fence, 'a change of its record', holderOf(row));
      const next = applyRunPatch(row.record as RunRecord, patch ?? {}, this.clock.now());
      await client.query(`UPDATE ${this.s}.runs SET status = $2, record = $3::json WHERE id = $1`, [id, next.status, encodeJson(next, `Run "${id}"`)]);
      return next;
    }, true);
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
    }, true);
  }

  async putStep(runId: string, step: StepRecord, fence?: Lease): Promise<boolean> {
    checkStep(step);
    return this.insertOnce('steps', runId, step.key, encodeJson(step, `Step "${step.key}"`), `Step key ${quoteName(step.key)}`, fence);
  }

  async putCall(runId: string, call: CallRecord, fence?: Lease): Promise<boolean> {
    checkCall(call);
    return this.insertOnce('calls', runId, call.key, encodeJson(call, `Call "${call.key}"`), `Call key ${quoteName(call.key)}`, fence);
  }

  async appendEvents(runId: string, events: readonly unknown[], fence?: Lease): Promise<AppendedEvents> {
    requireRunId(runId);
    const texts = encodeEvents(runId, events);
    // Nothing to write: the counter is read (a missing run reads no row).
    const result =
      texts.length === 0
        ? await this.query(`SELECT event_seq AS base FROM ${this.s}.runs WHERE id = $1`, [runId])
        : await this.commit((mode) => `WITH ${this.eventBatch(mode, '$4')} SELECT base, commit_mode FROM r`, [runId, texts.length, jsonArray(texts), fence?.token ?? null], false);
    const row = result.rows[0];
    if (row === undefined) throw await this.refused(runId, fence, `an append of ${texts.length} events`);
    return appended(row.base, texts.length);
  }

  /**
   * The events, then the step, in one statement committed on its own: one round trip, and
   * atomic (a kill, a full disk or a refused key leaves neither). The step row is selected from
   * the run's counter row, so a missing run writes nothing and reads no row.
   */
  async settleStep(runId: string, step: StepRecord, events: readonly unknown[], fence?: Lease): Promise<SettledStep> {
    requireRunId(runId);
    checkStep(step);
    const texts = encodeEvents(runId, events);
    const record = encodeJson(step, `Step "${step.key}"`);
    const key = encodeText(step.key);
    const token = fence?.token ?? null;
    const what = `Step key ${quoteName(step.key)} (settled with ${texts.length} event${texts.length === 1 ? '' : 's'})`;
    if (texts.length === 0) {
      // Without events the counter is read, not bumped: no new row version of the run for nothing.
      // An insert of a key, safe to send again.
      const resend = Resend.repeatable();
      const result = await this.write(
        runId,
        what,
        (mode) => `WITH r AS (SELECT event_seq AS base FROM ${this.s}.runs WHERE id = $1 AND ${fenceHolds('$4')} FOR SHARE),
           st AS (INSERT INTO ${this.s}.steps (run_id, key, record) SELECT $1, $2, $3::json FROM r ON CONFLICT (run_id, key) DO NOTHING RETURNING ${mode} AS commit_mode)
           SELECT base, (SELECT commit_mode FROM st), EXISTS (SELECT 1 FROM st) AS written FROM r`,
        [runId, key, record, token],
        false,
        resend,
      );
      return this.settled(result, resend, runId, key, record, 0, fence, what);
    }
    const batch = jsonArray(texts);
    const values = [runId, texts.length, batch, key, record, token];
    // It bumps the counter and adds a batch, which a second send would repeat: what a lost send
    // left is read back instead.
    const readBack = () => readBackSettle(this.read, this.schema, runId, key, record, batch);
    let resend = Resend.once(readBack);
    let result: PgResultLike;
    try {
      result = await this.write(runId, what, this.settleNew, values, false, resend);
    } catch (error) {
      if (!stepKeyTaken(error)) throw error;
      // The step's key is stored already; the failed statement wrote nothing (not the events
      // either). Sent as before decision 0097: the events are appended, the step reads unwritten.
      resend = Resend.once(readBack);
      result = await this.write(runId, what, this.settleKnown, values, false, resend);
    }
    return this.settled(result, resend, runId, key, record, texts.length, fence, what);
  }

  /** What a settle's statement answered: no row when the run is missing or the fence no longer holds. */
  private async settled(
    result: PgResultLike,
    resend: Resend,
    runId: string,
    key: string,
    record: string,
    count: number,
    fence: Lease | undefined,
    what: string,
  ): Promise<SettledStep> {
    const row = result.rows[0];
    if (row === undefined) throw await this.refused(runId, fence, `${what} of run "${runId}"`);
    const written = row.written === true || (resend.sentAgainAfterLoss && (await holdsRecord(this.read, this.schema, 'steps', runId, key, record)));
    return { written, events: appended(row.base, count) };
  }

  async readEvents(runId: string, options: { after?: number; limit?: number } = {}): Promise<StoredEvent[]> {
    requireRunId(runId);
    requirePositiveInteger('readEvents limit', options.limit, true);
    // Both tables (a run written before decision 0058 has single events), each read in order up to
    // the limit, then merged: numbers never overlap. json_array_elements of a `json` value gives
    // each element's text as it was written, so an event reads back as stored.
    const result = await this.query(
      `SELECT seq, event FROM (
         (SELECT seq, event FROM ${this.s}.events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3)
         UNION ALL
         (SELECT b.first_seq + e.ord - 1 AS seq, e.event
            FROM ${this.s}.event_batches b CROSS JOIN LATERAL json_array_elements(b.events) WITH ORDINALITY AS e(event, ord)
           WHERE b.run_id = $1 AND b.last_seq > $2 AND b.first_seq + e.ord - 1 > $2 ORDER BY b.last_seq, e.ord LIMIT $3)
       ) AS stored ORDER BY seq LIMIT $3`,
      [runId, sqlAfter(options.after), sqlLimit(options.limit)],
    );
    if (result.rows.length === 0) await this.requireRun(runId);
    return result.rows.map((row) => ({ seq: Number(row.seq), event: row.event }));
  }

  async putSignal(runId: string, signal: SignalRecord): Promise<void> {
    requireRunId(runId);
    checkSignal(signal);
    const text = encodeJson(signal, `Signal "${signal.name}"`);
    await this.write(
      runId,
      `Signal ${quoteName(signal.name)}`,
      (mode) => `INSERT INTO ${this.s}.signals (run_id, record) VALUES ($1, $2::json) RETURNING ${mode}`,
      [runId, text],
      true,
    );
  }

  async putData(runId: string, name: string, value: unknown, fence?: Lease): Promise<void> {
    requireRunId(runId);
    requireName('A data name', name);
    const what = `Data name ${quoteName(name)}`;
    const result = await this.write(
      runId,
      what,
      (mode) =>
        `WITH ${this.fenceRow('$4')}, w AS (INSERT INTO ${this.s}.data (run_id, name, entry) SELECT $1, $2, $3::json FROM f
           ON CONFLICT (run_id, name) DO UPDATE SET entry = EXCLUDED.entry RETURNING ${mode}) SELECT (SELECT count(*) FROM w) AS written FROM f`,
      [runId, encodeText(name), encodeJson({ value }, `Data "${name}"`), fence?.token ?? null],
      false,
      Resend.repeatable(),
    );
    if (result.rows.length === 0) throw await this.refused(runId, fence, `${what} of run "${runId}"`);
  }

  async putTree(runId: string, tree: unknown, fence?: Lease): Promise<void> {
    requireRunId(runId);
    const text = encodeJson(tree, `The tree of run "${runId}"`);
    const result = await this.write(
      runId,
      'The tree',
      (mode) =>
        `WITH ${this.fenceRow('$3')}, w AS (INSERT INTO ${this.s}.trees (run_id, tree) SELECT $1, $2::json FROM f
           ON CONFLICT (run_id) DO UPDATE SET tree = EXCLUDED.tree RETURNING ${mode}) SELECT (SELECT count(*) FROM w) AS written FROM f`,
      [runId, text, fence?.token ?? null],
      false,
      Resend.repeatable(),
    );
    if (result.rows.length === 0) throw await this.refused(runId, fence, `the tree of run "${runId}"`);
  }

  async acquireLease(runId: string, owner: string, ttlMs: number, options?: AcquireLeaseOptions): Promise<Lease> {
    requireRunId(runId);
    requireName('A lease owner', owner);
    requirePositiveInteger('A lease ttlMs', ttlMs);
    const token = randomUUID();
    const holder = JSON.stringify(localProcesses.self());
    let taken: { token: string; expiresAt: number } | undefined;
    let last: Record<string, unknown> | undefined;
    // An operator's takeover: whoever holds it. Waits for a fenced write in flight (it locks the row).
    if (options?.takeOver === true) {
      taken = await this.takeLease(runId, owner, ttlMs, 'any', [token, holder]);
      if (taken === undefined) throw new RunNotFoundError(runId);
    }
    for (let attempt = 0; taken === undefined && attempt < TAKEOVER_ATTEMPTS; attempt += 1) {
      taken = await this.takeLease(runId, owner, ttlMs, 'free', [token, holder]);
      if (taken !== undefined) break;
      last = await this.leaseRow(runId);
      // Released or expired since the UPDATE: take it as free.
      if (last.lease_owner === null || Number(last.lease_expires_at) <= this.clock.now()) continue;
      if (!holderGone(last)) break;
      // Only the lease whose holder was seen gone (or ours, when this statement is sent twice):
      // of two resumers that saw it gone, one takes it and the other looks again.
      taken = await this.takeLease(runId, owner, ttlMs, 'gone', [token, holder, last.lease_token]);
    }
    if (taken === undefined) {
      const { owner: holding, expiresAt } = holderOf(last ?? (await this.leaseRow(runId)));
      throw new RunLeaseError(runId, holding, expiresAt);
    }
    return new PostgresLease(runId, owner, taken.token, taken.expiresAt, ttlMs, () => this.clock.now(), {
      renew: async (t, at) =>
        (await this.query(`UPDATE ${this.s}.runs SET lease_expires_at = $3 WHERE id = $1 AND lease_token = $2`, [runId, t, at])).rowCount === 1,
      release: async (t) => {
        await this.query(
          `UPDATE ${this.s}.runs SET lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, lease_process = NULL WHERE id = $1 AND lease_token = $2`,
          [runId, t],
        );
      },
      holder: async () => holderOf(await this.leaseRow(runId)),
    });
  }

  /**
   * Sets the run's lease to `owner` until now + `ttlMs`, with the holder's process (`extra[1]`)
   * recorded beside the token it holds for. `free`: only a lease nobody holds, expired, or this
   * owner's (whose token it keeps: a renewal); `gone`: only the lease with token `extra[2]`;
   * `any`: whoever holds it. Undefined when no row was updated. Each leaves the same row when sent
   * twice (a resend after a lost connection).
   */
  private async takeLease(
    runId: string,
    owner: string,
    ttlMs: number,
    how: 'free' | 'gone' | 'any',
    extra: [token: string, holder: string, seen?: unknown],
  ): Promise<{ token: string; expiresAt: number } | undefined> {
    const now = this.clock.now();
    const expiresAt = now + ttlMs;
    const set = (tokenSql: string): string =>
      `UPDATE ${this.s}.runs SET lease_owner = $2, lease_expires_at = $3, lease_token = ${tokenSql},
         lease_process = (jsonb_build_object('token', ${tokenSql}) || $5::jsonb)::json`;
    const [token, holder, seen] = extra;
    const result =
      how === 'free'
        ? await this.query(
            `${set('CASE WHEN lease_owner = $2 AND lease_expires_at > $6 THEN lease_token ELSE $4 END')}
             WHERE id = $1 AND (lease_owner IS NULL OR lease_expires_at <= $6 OR lease_owner = $2) RETURNING lease_token`,
            [runId, encodeText(owner), expiresAt, token, holder, now],
          )
        : how === 'gone'
          ? await this.query(`${set('$4::text')} WHERE id = $1 AND lease_token IN ($4, $6) RETURNING lease_token`, [runId, encodeText(owner), expiresAt, token, holder, seen])
          : await this.query(`${set('$4::text')} WHERE id = $1 RETURNING lease_token`, [runId, encodeText(owner), expiresAt, token, holder]);
    const taken = result.rows[0]?.lease_token as string | undefined;
    return taken === undefined ? undefined : { token: taken, expiresAt };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPool && this.poolPromise !== undefined) await (await this.poolPromise).end();
  }

  /** The run's lease columns (owner, token, expiry, the holder's process). */
  private async leaseRow(runId: string): Promise<Record<string, unknown>> {
    const row = (await this.query(`SELECT lease_owner, lease_token, lease_expires_at, lease_process FROM ${this.s}.runs WHERE id = $1`, [runId])).rows[0];
    if (row === undefined) throw new RunNotFoundError(runId);
    return row;
  }

  private async insertOnce(table: 'steps' | 'calls', runId: string, key: string, text: string, what: string, fence: Lease | undefined): Promise<boolean> {
    requireRunId(runId);
    const sql: Statement = (mode) =>
      `WITH ${this.fenceRow('$4')}, w AS (INSERT INTO ${this.s}.${table} (run_id, key, record) SELECT $1, $2, $3::json FROM f
         ON CONFLICT (run_id, key) DO NOTHING RETURNING ${mode}) SELECT (SELECT count(*) FROM w) AS written FROM f`;
    const resend = Resend.repeatable();
    const result = await this.write(runId, what, sql, [runId, encodeText(key), text, fence?.token ?? null], false, resend);
    const row = result.rows[0];
    if (row === undefined) throw await this.refused(runId, fence, `${what} of run "${runId}"`);
    // Sent again after a lost answer: `true` when the key holds this record (the lost send wrote it).
    return Number(row.written) === 1 || (resend.sentAgainAfterLoss && (await holdsRecord(this.read, this.schema, table, runId, encodeText(key), text)));
  }

  /**
   * The CTE `f`: the run's row while `fence` (the token in parameter `param`, or null for an
   * unfenced write) holds its lease, locked FOR SHARE until the statement commits, so a takeover
   * (an UPDATE of the row) waits for the write or the write sees the new token and writes nothing.
   */
  private fenceRow(param: string): string {
    return `f AS (SELECT 1 FROM ${this.s}.runs WHERE id = $1 AND ${fenceHolds(param)} FOR SHARE)`;
  }

  /** Why a write found no row to write under: the run is missing, or `fence` no longer holds its lease. */
  private async refused(runId: string, fence: Lease | undefined, what: string): Promise<Error> {
    const row = (await this.query(`SELECT lease_owner, lease_expires_at FROM ${this.s}.runs WHERE id = $1`, [runId])).rows[0];
    if (row === undefined || fence === undefined) return new RunNotFoundError(runId);
    return fencedError(runId, fence, what, holderOf(row));
  }

  private async requireRun(runId: string): Promise<void> {
    const found = await this.query(`SELECT 1 FROM ${this.s}.runs WHERE id = $1`, [runId]);
    if (found.rows.length === 0) throw new RunNotFoundError(runId);
  }

  /**
   * A write for a run: a missing run (the foreign key) is a `RunNotFoundError`, input PostgreSQL
   * refuses a `RunStoreError` naming `what` and the run. A record (not a checkpoint) commits
   * asynchronously under the policies `checkpoints` and `off`. `resend`: see `commit`.
   */
  private async write(runId: string, what: string, sql: Statement, values: unknown[], checkpoint = false, resend = Resend.once()): Promise<PgResultLike> {
    try {
      return await this.commit(sql, values, checkpoint, resend, `${what} of run "${runId}"`);
    } catch (error) {
      if ((error as { code?: unknown }).code === FOREIGN_KEY_VIOLATION) throw new RunNotFoundError(runId, { cause: error });
      throw refusedInput(error, `${what} of run "${runId}"`) ?? error;
    }
  }

  /**
   * One statement, committed on its own as the fsync policy says, in one round trip: `sql` puts
   * the commit mode in a row it writes (see ASYNC_COMMIT), never a BEGIN/SET LOCAL/COMMIT of its own.
   * On a lost connection it is sent again only as `resend` allows: by default only when it never
   * reached the server, since a write not known to be repeatable could be stored twice.
   */
  private commit(sql: Statement, values: unknown[], checkpoint: boolean, resend = Resend.once(), what = 'a write'): Promise<PgResultLike> {
    const synchronous = this.fsync === 'every-record' || (checkpoint && this.fsync === 'checkpoints');
    return this.query(sql(synchronous ? SESSION_COMMIT : ASYNC_COMMIT), values, this.prepare, resend, what);
  }

  /** A name per statement text: the same text always gets the same name, another text another one. */
  private statementName(text: string): string {
    let name = this.statementNames.get(text);
    if (name === undefined) {
      name = `groundswell_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
      this.statementNames.set(text, name);
    }
    return name;
  }

  /**
   * The CTEs `r` (the run's counter bumped by $2 while the lease token in parameter `fence` holds
   * the lease, or that parameter is null; its old value as `base`, and the commit mode)
   * and `ins` (the $2 events of the JSON array $3, one row numbered base + 1 .. base + $2) of a
   * statement with $1 the run id. The UPDATE also locks the run's row until the commit.
   */
  private eventBatch(mode: string, fence: string): string {
    return `r AS (UPDATE ${this.s}.runs SET event_seq = event_seq + $2 WHERE id = $1 AND ${fenceHolds(fence)} RETURNING event_seq - $2 AS base, ${mode} AS commit_mode),
       ins AS (INSERT INTO ${this.s}.event_batches (run_id, last_seq, first_seq, events) SELECT $1, r.base + $2, r.base + 1, $3::json FROM r)`;
  }

  /**
   * `prepared`: as a named statement, parsed and planned once per connection (the hot writes).
   * Sent once more on a lost connection where `resend` allows it (decision 0068); the default
   * suits what calls it directly: reads, and the lease's conditional updates, which leave the
   * same row when sent twice with the same values.
   */
  private async query(sql: string, values: unknown[], prepared = false, resend = Resend.repeatable(), what = 'a statement'): Promise<PgResultLike> {
    const pool = await this.pool();
    try {
      const send = () => (prepared ? pool.query({ name: this.statementName(sql), text: sql, values }) : pool.query(sql, values));
      return await sendWithResend(send, resend, `${what} (PostgreSQL run store, schema "${this.schema}")`);
    } catch (error) {
      throw this.explain(error);
    }
  }

  /** A read for the read-backs after a lost connection. */
  private readonly read = (sql: string, values: unknown[]): Promise<PgResultLike> => this.query(sql, values);

  /**
   * `body` in a transaction. On a lost connection it runs again once on a new one when that is
   * safe: the connection was lost before COMMIT was sent (the server never commits without it), or
   * the body is `repeatable` (reads only, or writes that leave the same rows when run twice).
   */
  private async transaction<T>(body: (client: PgClientLike) => Promise<T>, repeatable = false, asyncCommit = this.fsync === 'off'): Promise<T> {
    const pool = await this.pool();
    const what = `a transaction (PostgreSQL run store, schema "${this.schema}")`;
    let committing = false;
    const once = async (): Promise<T> => {
      committing = false;
      const client = await pool.connect();
      const unlisten = listenWhileCheckedOut(client);
      try {
        // One round trip for both (no parameters: the simple protocol takes several statements).
        await client.query(asyncCommit ? 'BEGIN; SET LOCAL synchronous_commit TO OFF' : 'BEGIN');
        const result = await body(client);
        committing = true;
        await client.query('COMMIT');
        unlisten();
        client.release();
        return result;
      } catch (error) {
        const lost = connectionLoss(error) !== undefined;
        // A lost connection is not queryable: the pool is told to drop it.
        if (!lost) await client.query('ROLLBACK').catch(() => undefined);
        unlisten();
        client.release(lost ? (error as Error) : undefined);
        throw error;
      }
    };
    try {
      // Two tries: a lost connection is tried once more on a fresh one, where that is safe.
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await once();
        } catch (error) {
          const loss = connectionLoss(error);
          if (loss === undefined) throw error;
          if (loss === 'maybe-sent' && committing && !repeatable) throw lostAtCommit(what, error);
          if (attempt === 2) {
            throw new RunStoreError(`${what} failed: the connection to PostgreSQL failed, and again on a second try (${(error as Error).message}).`, { cause: error });
          }
        }
        await new Promise<void>((resume) => setImmediate(resume));
      }
    } catch (error) {
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
    this.poolPromise ??= loadPg().then((pg) => listenForPoolErrors(new pg.Pool(this.connection)));
    return this.poolPromise;
  }

  /** Who holds the run's lease, read only: alive until its expiry, unless its process was of this machine and is gone. */
  async leaseOf(runId: string): Promise<LeaseHolder | undefined> {
    requireRunId(runId);
    const row = await this.leaseRow(runId);
    const { owner, expiresAt } = holderOf(row);
    if (owner === undefined || expiresAt === undefined) return undefined;
    const at = Number(expiresAt);
    return { owner, expiresAt: at, state: at <= this.clock.now() ? 'expired' : holderGone(row) ? 'exited' : 'alive' };
  }
}

/** The condition that a lease token parameter (null: no fence) still holds the run's lease. */
function fenceHolds(param: string): string {
  return `(${param}::text IS NULL OR lease_token = ${param}::text)`;
}

/**
 * Whether the lease in `row` is held by a process of this machine that is gone. Only a process
 * recorded for the lease's current token counts: a version before decision 0090 takes a lease
 * without recording one, and leaves the previous holder's beside it.
 */
function holderGone(row: Record<string, unknown>): boolean {
  const recorded = row.lease_process as { token?: unknown } | null | undefined;
  if (typeof recorded !== 'object' || recorded === null || row.lease_token === null || recorded.token !== row.lease_token) return false;
  const holder = parseHolderProcess(recorded);
  return holder !== undefined && holderIsGone(holder);
}

function holderOf(row: Record<string, unknown>): { owner: string | undefined; expiresAt: number | undefined } {
  const owner = row.lease_owner as string | null;
  return { owner: owner === null ? undefined : decodeText(owner), expiresAt: (row.lease_expires_at as number | null) ?? undefined };
}

/** Events encoded one by one, as one JSON array: one parameter, nothing escaped again for an array literal. */
function jsonArray(texts: readonly string[]): string {
  return `[${texts.join(',')}]`;
}

/** The sequence numbers a batch of `count` got after the run's counter stood at `base`. */
function appended(base: unknown, count: number): AppendedEvents {
  const first = Number(base) + 1;
  return { first, last: first + count - 1 };
}

/** A unique violation on the steps table: the step's key is stored already. */
function stepKeyTaken(error: unknown): boolean {
  const { code, table } = error as { code?: unknown; table?: unknown };
  return code === UNIQUE_VIOLATION && table === 'steps';
}

/**
 * A statement whose text is built once per commit mode: the same string every time, so it is
 * not rebuilt per write and its prepared statement's name is found without hashing it again.
 */
function textPerMode(build: Statement): Statement {
  const texts = new Map<string, string>();
  return (mode) => {
    let text = texts.get(mode);
    if (text === undefined) {
      text = build(mode);
      texts.set(mode, text);
    }
    return text;
  };
}
