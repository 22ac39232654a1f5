import { setTimeout as sleep } from 'node:timers/promises';
import { METERED, type BudgetAmounts, type MeteredDimension } from '../../budgets/budget-amounts.js';
import type { BudgetAccount, SharedRefusal } from '../../budgets/budget-account.js';
import type { Headroom } from '../../budgets/headroom.js';
import type { PgPoolLike } from '../postgres/pg-like.js';
import { UsageError } from '../../errors/groundswell-error.js';
import { MIGRATE_LOCK_KEY, requireSchemaName } from '../postgres/postgres-schema.js';

/** Where a fan-out's children share one budget account: a `pg.Pool` on a database every process reaches. @public */
export interface DbosBudgetAccountsOptions {
  readonly pool: PgPoolLike;
  /** The schema of the `budget_accounts` table (default "groundswell", the run store's). */
  readonly schema?: string;
}

const COLUMN: Record<MeteredDimension, string> = { usd: 'usd', tokens: 'tokens', modelRequests: 'model_requests', toolCalls: 'tool_calls' };
// Dollars are summed in floating point: a request that exactly fills a limit must not be refused.
const EPSILON = 1e-9;
// A first version polls: a request that must wait for its siblings' holds asks again after these.
const FIRST_POLL_MS = 10;
const LAST_POLL_MS = 500;

/**
 * The `budget_accounts` table: one row per fan-out launch, its limits (null: none) and, per
 * limit, what its children spent and what their requests in flight hold.
 */
function tableSql(schema: string): string {
  const columns = METERED.map((d) => `  limit_${COLUMN[d]} double precision,\n  spent_${COLUMN[d]} double precision NOT NULL DEFAULT 0,\n  reserved_${COLUMN[d]} double precision NOT NULL DEFAULT 0`);
  return `CREATE TABLE IF NOT EXISTS "${schema}".budget_accounts (\n  id text PRIMARY KEY,\n${columns.join(',\n')}\n)`;
}

/** The accounts of one database: each process opens the rows its fan-outs share. */
export class BudgetAccounts {
  private readonly schema: string;
  private ready: Promise<void> | undefined;

  constructor(private readonly options: DbosBudgetAccountsOptions) {
    this.schema = requireSchemaName(options.schema ?? 'groundswell');
  }

  /** Creates the schema and table when the catalog lacks them (a role that may only use the table creates nothing). */
  migrate(): Promise<void> {
    return (this.ready ??= this.create().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    }));
  }

  /** Opens the account `id` with `limits` (a launcher recovered by DBOS finds its row as it left it). */
  async open(id: string, limits: Headroom): Promise<void> {
    await this.migrate();
    const values = METERED.map((d) => limits[d] ?? null);
    await this.options.pool.query(
      `INSERT INTO "${this.schema}".budget_accounts (id, ${METERED.map((d) => `limit_${COLUMN[d]}`).join(', ')}) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
      [id, ...values],
    );
  }

  /** The account `id` as a budget of a child sees it. */
  account(id: string): BudgetAccount {
    return new PgBudgetAccount(this.options.pool, `"${this.schema}".budget_accounts`, id);
  }

  private async create(): Promise<void> {
    const client = await this.options.pool.connect();
    try {
      await client.query('BEGIN');
      // The run store's migration lock: launchers starting together create the table once.
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATE_LOCK_KEY, this.schema]);
      const found = await client.query(
        `SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = 'budget_accounts'`,
        [this.schema],
      );
      if (found.rows.length === 0) {
        await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`);
        await client.query(tableSql(this.schema));
      }
      await client.query('COMMIT');
      client.release();
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(error instanceof Error ? error : true);
      throw error;
    }
  }
}

class PgBudgetAccount implements BudgetAccount {
  constructor(
    private readonly pool: PgPoolLike,
    private readonly table: string,
    private readonly id: string,
  ) {}

  async reserve(need: BudgetAmounts, refuse: SharedRefusal): Promise<void> {
    const needs = METERED.map((d) => need[d]);
    // One statement: the check and the hold cannot interleave with another process's.
    const fits = METERED.map((d, i) => `(limit_${COLUMN[d]} IS NULL OR $${i + 2} = 0 OR spent_${COLUMN[d]} + reserved_${COLUMN[d]} + $${i + 2} <= limit_${COLUMN[d]} + ${EPSILON})`);
    const hold = `UPDATE ${this.table} SET ${METERED.map((d, i) => `reserved_${COLUMN[d]} = reserved_${COLUMN[d]} + $${i + 2}`).join(', ')} WHERE id = $1 AND ${fits.join(' AND ')} RETURNING id`;
    for (let pause = FIRST_POLL_MS; ; pause = Math.min(LAST_POLL_MS, pause * 2)) {
      if ((await this.pool.query(hold, [this.id, ...needs])).rows.length > 0) return;
      const row = (await this.pool.query(`SELECT * FROM ${this.table} WHERE id = $1`, [this.id])).rows[0];
      if (row === undefined) throw new UsageError(`The budget account "${this.id}" is not in ${this.table} (its launcher opens it before its children start).`);
      for (const d of METERED) {
        const limit = row[`limit_${COLUMN[d]}`] as number | null;
        const spent = Number(row[`spent_${COLUMN[d]}`]);
        // Refused only when it can never fit, whatever the holds in flight settle to.
        if (limit !== null && need[d] > 0 && spent + need[d] > limit + EPSILON) {
          throw refuse(d, { limit, spent, reserved: Number(row[`reserved_${COLUMN[d]}`]) }, need[d]);
        }
      }
      await sleep(pause);
    }
  }

  settle(held: BudgetAmounts, used: BudgetAmounts): void {
    const sets = METERED.map((d, i) => `reserved_${COLUMN[d]} = GREATEST(0, reserved_${COLUMN[d]} - $${i + 2}), spent_${COLUMN[d]} = spent_${COLUMN[d]} + $${i + 6}`);
    // A settle that fails leaves the hold booked: the account then refuses early, never late.
    void this.pool.query(`UPDATE ${this.table} SET ${sets.join(', ')} WHERE id = $1`, [this.id, ...METERED.map((d) => held[d]), ...METERED.map((d) => used[d])]).catch(() => undefined);
  }
}
