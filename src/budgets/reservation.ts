import type { BudgetExceededError } from './budget-exceeded-error.js';
import type { BudgetLedger } from './budget-ledger.js';
import { formatAmount, NO_AMOUNTS, type BudgetAmounts, type MeteredDimension } from './budget-amounts.js';
import type { BudgetAccount } from './budget-account.js';
import { BudgetWait } from './budget-wait.js';
import type { InputEstimate } from './input-ratios.js';

/**
 * What one request or tool call holds on every budget enclosing it, until it settles to what it
 * really used. Settling twice changes nothing.
 */
export class Reservation {
  private open = true;
  // Whether the shared account holds it too (only once its reservation there succeeded).
  private shared = false;
  // Runs once when it settles, before waiting requests try again (see `whenSettled`).
  private after: (() => void) | undefined;
  /** A model request's input estimate, which its answer calibrates (see `learnInput`). */
  estimate: InputEstimate | undefined;

  constructor(
    private readonly ledgers: readonly BudgetLedger[],
    private readonly held: BudgetAmounts,
  ) {}

  /** The account shared with other processes that one of its budgets holds on, if any: a look over its few budgets. */
  get account(): BudgetAccount | undefined {
    for (const ledger of this.ledgers) if (ledger.account !== undefined) return ledger.account;
    return undefined;
  }

  /** Holds it on the shared account too (see `BudgetAccount`); when that refuses, holds nothing anywhere and throws. */
  async holdShared(what: string): Promise<void> {
    const ledger = this.ledgers.find((each) => each.account !== undefined);
    if (ledger?.account === undefined || this.shared) return;
    try {
      await ledger.account.reserve(this.held, (dimension, account, needed) => ledger.refuseShared(dimension, account, needed, what));
    } catch (error) {
      this.settle(NO_AMOUNTS);
      throw error;
    }
    this.shared = true;
    // Settled while it waited (a wallMs ran out): what it just took goes back.
    if (!this.open) ledger.account.settle(this.held, NO_AMOUNTS);
  }

  /** What it holds on each budget (a durable run keeps it, so a crash mid-request still counts). */
  get amounts(): BudgetAmounts {
    return this.held;
  }

  settle(used: BudgetAmounts): void {
    if (!this.open) return;
    this.open = false;
    for (const ledger of this.ledgers) ledger.settle(this.held, used);
    if (this.shared) this.account?.settle(this.held, used);
    this.after?.();
    // What it held is free now: requests waiting for it try again (on every budget, settled first).
    for (const ledger of this.ledgers) ledger.wake();
  }

  /** `fn` runs once when this settles, before requests waiting on its budgets try again. */
  whenSettled(fn: () => void): void {
    this.after = fn;
  }

  /** The wallMs error of an enclosing budget that ran out while this was in flight, if any. */
  get expired(): BudgetExceededError | undefined {
    for (const ledger of this.ledgers) if (ledger.expired !== undefined) return ledger.expired;
    return undefined;
  }
}

// Which ledger refused, for a caller that may wait for that budget's raise (a suspending budget).
const refusers = new WeakMap<BudgetExceededError, BudgetLedger>();

/** The budget whose limit refused the work that threw `error` (not one whose time ran out). */
export function refusedBy(error: unknown): BudgetLedger | undefined {
  return typeof error === 'object' && error !== null ? refusers.get(error as BudgetExceededError) : undefined;
}

/**
 * Checks `need` against every ledger, then holds it on all of them; throws `BudgetExceededError`
 * (holding nothing) when any limit could be passed, any wallMs ran out or any budget stopped
 * taking work. Synchronous from the first check to the last hold: no other call can reserve in
 * between. `what` names the work in the error: `Model request of agent "writer"`.
 *
 * With `mayWait` (a model request), work that fits below every limit but not beside what is held
 * now, or that would go before requests already waiting, throws `BudgetWait` instead; it is
 * refused only when what is spent plus `need` passes a limit.
 */
export function reserve(ledgers: readonly BudgetLedger[], need: BudgetAmounts, what: string, mayWait = false): Reservation {
  let wait: BudgetWait | undefined;
  for (const ledger of ledgers) {
    const expiry = ledger.expired ?? ledger.stopped;
    if (expiry !== undefined) throw ledger.refuseExpired(what, expiry);
    const over = ledger.overrun(need);
    if (over === undefined) {
      if (mayWait && wait === undefined && ledger.queuedAhead()) wait = waitFor(ledger, ledger.shownFor(need), need, what);
      continue;
    }
    const never = mayWait ? ledger.beyond(need) : over;
    if (never === undefined) {
      wait ??= waitFor(ledger, over, need, what);
      continue;
    }
    const error = ledger.refuse(never, need, what);
    refusers.set(error, ledger);
    throw error;
  }
  if (wait !== undefined) throw wait;
  for (const ledger of ledgers) ledger.hold(need);
  return new Reservation(ledgers, need);
}

function waitFor(ledger: BudgetLedger, dimension: MeteredDimension, need: BudgetAmounts, what: string): BudgetWait {
  const standing = ledger.standing(dimension, need[dimension]);
  const amount = (value: number): string => formatAmount(dimension, value);
  return new BudgetWait(
    `${what} waits for the ${ledger.owner} budget (${ledger.path}): ${dimension} limit ${amount(standing.limit)}, spent ${amount(standing.spent)}, ` +
      `reserved ${amount(standing.reserved)}, needed ${amount(standing.needed)}.`,
    ledger.queue,
    standing,
    'inFlight',
  );
}
