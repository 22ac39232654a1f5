import type { BudgetExceededError } from './budget-exceeded-error.js';
import type { BudgetLedger } from './budget-ledger.js';
import type { BudgetAmounts } from './budget-amounts.js';

/**
 * What one request or tool call holds on every budget enclosing it, until it settles to what it
 * really used. Settling twice changes nothing.
 */
export class Reservation {
  private open = true;

  constructor(
    private readonly ledgers: readonly BudgetLedger[],
    private readonly held: BudgetAmounts,
  ) {}

  /** What it holds on each budget (a durable run keeps it, so a crash mid-request still counts). */
  get amounts(): BudgetAmounts {
    return this.held;
  }

  settle(used: BudgetAmounts): void {
    if (!this.open) return;
    this.open = false;
    for (const ledger of this.ledgers) ledger.settle(this.held, used);
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
 * (holding nothing) when any limit could be passed or any wallMs ran out. Synchronous from the
 * first check to the last hold: no other call can reserve in between. `what` names the work in
 * the error: `Model request of agent "writer"`.
 */
export function reserve(ledgers: readonly BudgetLedger[], need: BudgetAmounts, what: string): Reservation {
  for (const ledger of ledgers) {
    const expiry = ledger.expired;
    if (expiry !== undefined) throw ledger.refuseExpired(what, expiry);
    const over = ledger.overrun(need);
    if (over === undefined) continue;
    const error = ledger.refuse(over, need, what);
    refusers.set(error, ledger);
    throw error;
  }
  for (const ledger of ledgers) ledger.hold(need);
  return new Reservation(ledgers, need);
}
