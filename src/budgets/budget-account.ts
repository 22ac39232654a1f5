import type { BudgetExceededError } from './budget-exceeded-error.js';
import type { BudgetAmounts, MeteredDimension } from './budget-amounts.js';

/** Makes the refusal of a budget for `dimension`, given how the shared account stands. */
export type SharedRefusal = (dimension: MeteredDimension, account: { limit: number; spent: number; reserved: number }, needed: number) => BudgetExceededError;

/**
 * An account a budget shares with other processes (a DBOS fan-out's children on workers): every
 * request held on the budget also holds on the account before it is sent, which refuses it only
 * when what all of them spent plus its need passes a limit, and otherwise makes it wait.
 */
export interface BudgetAccount {
  /** Holds `need`, waiting while what others hold leaves no room; throws what `refuse` makes when it can never fit. */
  reserve(need: BudgetAmounts, refuse: SharedRefusal): Promise<void>;
  /** Moves what `held` held to what was `used`; asynchronous, never throws. */
  settle(held: BudgetAmounts, used: BudgetAmounts): void;
}
