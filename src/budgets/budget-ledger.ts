import type { Budget, BudgetDimension, BudgetRaise, BudgetStanding } from '../types/budget.js';
import type { EventPayload } from '../types/events.js';
import type { SerializedBudget } from '../types/serialized.js';
import { BudgetExceededError } from './budget-exceeded-error.js';
import { formatAmount, METERED, type BudgetAmounts, type MeteredDimension } from './budget-amounts.js';
import { nodePath, type BudgetNode } from './budget-node.js';
import type { BudgetAccount } from './budget-account.js';
import type { InputRatios } from './input-ratios.js';
import { WaitQueue } from './wait-queue.js';

/** Reports a budget event on the budget's own node (a no-op outside a tree). */
export type BudgetEmit = (payload: EventPayload) => void;

const DEFAULT_WARN_AT = 0.8;
// Dollars are summed in floating point: a request that exactly fills a limit must not be refused.
const EPSILON = 1e-9;

/**
 * The account of one budget: what is spent and what requests in flight hold, per limit. All
 * changes are synchronous, so a check and the hold after it cannot interleave with another
 * call's (JS runs one callback at a time): concurrent calls never overshoot together.
 */
export class BudgetLedger {
  readonly path: string;
  readonly warnAt: number;
  private readonly spent: Record<MeteredDimension, number> = { usd: 0, tokens: 0, modelRequests: 0, toolCalls: 0 };
  private readonly reserved: Record<MeteredDimension, number> = { usd: 0, tokens: 0, modelRequests: 0, toolCalls: 0 };
  // The budget's limits, which a raise signal may replace (a suspended durable budget).
  private readonly limits: Partial<Record<MeteredDimension, number>>;
  private warned: Set<BudgetDimension> | undefined;
  /** Set while a suspended budget waits for its raise: later refusals wait on the same one. */
  raising: Promise<void> | undefined;
  // Requests waiting for what requests in flight hold (made on first use: most budgets never have one).
  private waiting: WaitQueue | undefined;
  /** What answers below this budget taught about input, when it is the outermost one (see `inputRatiosOf`). */
  inputRatios: InputRatios | undefined;
  private expiry: BudgetExceededError | undefined;
  // The limit of the latest refusal, for the standing views show (a raise of it clears it).
  private refusedOn: MeteredDimension | undefined;
  private controller: AbortController | undefined;
  private stop: BudgetExceededError | undefined;
  /** An account shared with other processes that every reservation here also holds on (see `BudgetAccount`). */
  account: BudgetAccount | undefined;

  constructor(
    readonly budget: Readonly<Budget>,
    readonly node: BudgetNode,
    /** What the budget is set on, for messages: `step "fetch"`, `agent "writer"`. */
    readonly owner: string,
    private readonly emit: BudgetEmit,
  ) {
    this.path = nodePath(node);
    this.warnAt = budget.warnAt ?? DEFAULT_WARN_AT;
    this.limits = { usd: budget.usd, tokens: budget.tokens, modelRequests: budget.modelRequests, toolCalls: budget.toolCalls };
  }

  /** Whether a refusal waits for a raise signal instead of failing (in a durable run). */
  get suspends(): boolean {
    return this.budget.onExceeded === 'suspend';
  }

  /** The limit of `dimension` now (a raise may have replaced the budget's own). */
  limit(dimension: MeteredDimension): number | undefined {
    return this.limits[dimension];
  }

  /** Replaces the limits a raise signal names; the others stay. Warnings may fire again below the new limits. */
  raise(next: BudgetRaise): void {
    for (const dimension of METERED) {
      const value = next[dimension];
      if (value === undefined) continue;
      this.limits[dimension] = value;
      this.warned?.delete(dimension);
      if (this.refusedOn === dimension) this.refusedOn = undefined;
    }
    // Requests waiting here may fit below the new limits (or never again, below lower ones).
    this.waiting?.wake();
  }

  /**
   * Books what earlier attempts of a durable run spent below this budget (replayed calls and
   * steps), without events: they were reported when that work ran. A warning already due is
   * marked as given.
   */
  book(used: BudgetAmounts): void {
    for (const dimension of METERED) {
      this.spent[dimension] += used[dimension];
      const limit = this.limits[dimension];
      if (limit !== undefined && used[dimension] > 0 && this.spent[dimension] + EPSILON >= this.warnAt * limit) (this.warned ??= new Set()).add(dimension);
    }
  }

  /** Set once the budget's wallMs ran out: everything below it is refused from then on. */
  get expired(): BudgetExceededError | undefined {
    return this.expiry;
  }

  /** Set once a request used more than its reservation allowed: everything below it is refused from then on. */
  get stopped(): BudgetExceededError | undefined {
    return this.stop;
  }

  /**
   * A request settled above what its reservation allowed (a provider that answered beyond
   * `maxTokens`): reservations no longer bound this budget, so it refuses all later work. Emits
   * `budgetExceeded` once, with the standing of `dimension` as it is now.
   */
  stopTaking(dimension: MeteredDimension, why: string): void {
    if (this.stop !== undefined) return;
    const standing = this.standing(dimension, 0);
    this.refusedOn = dimension;
    this.emit({ type: 'budgetExceeded', ...standing });
    this.stop = new BudgetExceededError(`the ${this.owner} budget (${this.path}) takes no more work: ${why}`, standing);
  }

  /** Aborts when wallMs runs out (made on first use: only calls below a timed budget ask). */
  get signal(): AbortSignal {
    return (this.controller ??= new AbortController()).signal;
  }

  /** The first limit that `need` on top of what is spent and held could pass, or undefined. */
  overrun(need: BudgetAmounts): MeteredDimension | undefined {
    for (const dimension of METERED) {
      const limit = this.limits[dimension];
      if (limit === undefined || need[dimension] === 0) continue;
      if (this.spent[dimension] + this.reserved[dimension] + need[dimension] > limit + EPSILON) return dimension;
    }
    return undefined;
  }

  /**
   * The first limit that `need` on top of what is spent alone passes: work that can never fit,
   * whatever the work in flight settles to. Undefined when it would fit once nothing is held.
   */
  beyond(need: BudgetAmounts): MeteredDimension | undefined {
    for (const dimension of METERED) {
      const limit = this.limits[dimension];
      if (limit === undefined || need[dimension] === 0) continue;
      const after = this.spent[dimension] + need[dimension];
      if (after + this.reserved[dimension] <= limit + EPSILON) continue;
      // A floating-point residue of released dollars holds nothing: waiting for it would never end.
      if (after > limit + EPSILON || this.reserved[dimension] < EPSILON) return dimension;
    }
    return undefined;
  }

  /** The limit a waiting request shows: the first one it needs that this budget sets. */
  shownFor(need: BudgetAmounts): MeteredDimension {
    return METERED.find((dimension) => need[dimension] > 0 && this.limits[dimension] !== undefined) ?? 'modelRequests';
  }

  /** Requests waiting for this budget, oldest first. */
  get queue(): WaitQueue {
    return (this.waiting ??= new WaitQueue());
  }

  /** Whether a request holding `ticket` must stand behind one waiting here (false for most budgets, which never had one). */
  queuedAhead(ticket?: number): boolean {
    return this.waiting !== undefined && this.waiting.ahead(ticket);
  }

  /** Lets requests waiting here try again (what is spent, held or allowed changed). */
  wake(): void {
    this.waiting?.wake();
  }

  /** The error (and `budgetExceeded` event) for a request or tool call refused on `dimension`. */
  refuse(dimension: MeteredDimension, need: BudgetAmounts, what: string): BudgetExceededError {
    return this.refuseAt(this.standing(dimension, need[dimension]), what);
  }

  /** The same for a refusal by the shared account, whose `standing` counts every process. */
  refuseShared(dimension: MeteredDimension, account: { limit: number; spent: number; reserved: number }, needed: number, what: string): BudgetExceededError {
    return this.refuseAt({ budgetNodeId: this.node.id, budgetPath: this.path, dimension, ...account, needed }, what);
  }

  private refuseAt(standing: BudgetStanding, what: string): BudgetExceededError {
    const dimension = standing.dimension as MeteredDimension;
    this.refusedOn = dimension;
    this.emit({ type: 'budgetExceeded', ...standing });
    return new BudgetExceededError(
      `${what} was refused: the ${this.owner} budget (${this.path}) could be passed: ${dimension} limit ${formatAmount(dimension, standing.limit)}, ` +
        `spent ${formatAmount(dimension, standing.spent)}, reserved ${formatAmount(dimension, standing.reserved)}, needed ${formatAmount(dimension, standing.needed)}.`,
      standing,
    );
  }

  /** A new error for work refused because wallMs ran out or the budget stopped taking work earlier (its event was emitted then). */
  refuseExpired(what: string, expiry: BudgetExceededError): BudgetExceededError {
    return new BudgetExceededError(`${what} was refused: ${expiry.message}`, expiry, { cause: expiry });
  }

  hold(need: BudgetAmounts): void {
    for (const dimension of METERED) this.reserved[dimension] += need[dimension];
    this.warnIfCrossed(need);
  }

  /** Releases what was held and books what was used instead. */
  settle(held: BudgetAmounts, used: BudgetAmounts): void {
    for (const dimension of METERED) {
      this.reserved[dimension] = Math.max(0, this.reserved[dimension] - held[dimension]);
      this.spent[dimension] += used[dimension];
    }
    this.warnIfCrossed(used);
  }

  /** wallMs ran out after `elapsedMs`: reports it, refuses all later work and aborts requests in flight. */
  expire(elapsedMs: number): BudgetExceededError {
    if (this.expiry !== undefined) return this.expiry;
    const limit = this.budget.wallMs ?? 0;
    const standing: BudgetStanding = { budgetNodeId: this.node.id, budgetPath: this.path, dimension: 'wallMs', limit, spent: elapsedMs, reserved: 0, needed: 0 };
    this.emit({ type: 'budgetExceeded', ...standing });
    this.expiry = new BudgetExceededError(
      `The ${this.owner} budget (${this.path}) ran out of time: wallMs limit ${formatAmount('wallMs', limit)}, ${formatAmount('wallMs', elapsedMs)} elapsed.`,
      standing,
    );
    this.controller?.abort(this.expiry);
    // Requests waiting here are refused now, not when something settles.
    this.waiting?.wake();
    return this.expiry;
  }

  /** The standing of one limit now, with `needed` for the work that asked. */
  standing(dimension: MeteredDimension, needed: number): BudgetStanding {
    return {
      budgetNodeId: this.node.id,
      budgetPath: this.path,
      dimension,
      limit: this.limits[dimension] ?? Number.POSITIVE_INFINITY,
      spent: this.spent[dimension],
      reserved: this.reserved[dimension],
      needed,
    };
  }

  /**
   * The whole budget as it stands now, JSON-safe: limits as they are now, spent and reserved per
   * metered limit. A node's export, the tree debugger and the viewer show it.
   */
  toJSON(): SerializedBudget {
    const limits: SerializedBudget['limits'] = {};
    for (const dimension of METERED) {
      const limit = this.limits[dimension];
      if (limit !== undefined) limits[dimension] = limit;
    }
    if (this.budget.wallMs !== undefined) limits.wallMs = this.budget.wallMs;
    const { usd, tokens, modelRequests, toolCalls } = this.reserved;
    const out: SerializedBudget = {
      owner: this.owner,
      limits,
      spent: { ...this.spent },
      // Dollars held and released in floating point can leave a residue far below a cent: none is held.
      reserved: { usd: usd < EPSILON ? 0 : usd, tokens, modelRequests, toolCalls },
      warnAt: this.warnAt,
    };
    const exceeded = this.expiry !== undefined ? 'wallMs' : this.refusedOn;
    if (exceeded !== undefined) out.exceeded = exceeded;
    return out;
  }

  /** One `budgetWarning` per limit, the first time spent plus held reaches `warnAt` of it. */
  private warnIfCrossed(change: BudgetAmounts): void {
    for (const dimension of METERED) {
      const limit = this.limits[dimension];
      if (limit === undefined || change[dimension] === 0 || this.warned?.has(dimension) === true) continue;
      if (this.spent[dimension] + this.reserved[dimension] + EPSILON < this.warnAt * limit) continue;
      (this.warned ??= new Set()).add(dimension);
      this.emit({ type: 'budgetWarning', ...this.standing(dimension, change[dimension]), warnAt: this.warnAt });
    }
  }
}
