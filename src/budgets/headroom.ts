import type { BudgetRaise } from '../types/budget.js';
import { METERED, NO_AMOUNTS, type BudgetAmounts, type MeteredDimension } from './budget-amounts.js';
import type { BudgetLedger } from './budget-ledger.js';

/** What budgets leave for more work, per metered limit; only the limits some budget sets. */
export type Headroom = Partial<Record<MeteredDimension, number>>;

/**
 * What `ledgers` leave now for work that cannot reserve on them (it runs in another process):
 * per metered limit, the least over the budgets that set it of limit − spent − reserved, never
 * below 0. Undefined when none of them limits anything metered (wallMs is time, not an amount).
 */
export function headroomOf(ledgers: readonly BudgetLedger[]): Headroom | undefined {
  let left: Record<string, number> | undefined;
  for (const ledger of ledgers) {
    for (const dimension of METERED) {
      const limit = ledger.limit(dimension);
      if (limit === undefined) continue;
      const { spent, reserved } = ledger.standing(dimension, 0);
      const rest = Math.max(0, limit - spent - reserved);
      left ??= {};
      left[dimension] = Math.min(left[dimension] ?? Number.POSITIVE_INFINITY, rest);
    }
  }
  return left;
}

/**
 * Headroom read back from data that crossed a process boundary (JSON): the metered limits that
 * are finite numbers >= 0, anything else dropped. Undefined when none is left.
 */
export function headroomFrom(value: unknown): Headroom | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  let headroom: Record<string, number> | undefined;
  for (const dimension of METERED) {
    const amount = (value as Record<string, unknown>)[dimension];
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) continue;
    (headroom ??= {})[dimension] = amount;
  }
  return headroom;
}

/**
 * Lowers `ledger`'s limits to `headroom` where it is tighter (adding the limits it lacks): the
 * budget then refuses whatever either would. What is spent and held stays.
 */
export function lowerTo(ledger: BudgetLedger, headroom: Headroom): void {
  const lowered: BudgetRaise = {};
  for (const dimension of METERED) {
    const amount = headroom[dimension];
    if (amount === undefined) continue;
    const limit = ledger.limit(dimension);
    if (limit === undefined || amount < limit) lowered[dimension] = amount;
  }
  ledger.raise(lowered);
}

/**
 * One of `parts` even shares of `headroom`: dollars divided, counts divided and rounded down, so
 * the shares together never pass it.
 */
export function shareOf(headroom: Headroom, parts: number): Headroom {
  const share: Headroom = {};
  for (const dimension of METERED) {
    const amount = headroom[dimension];
    if (amount === undefined) continue;
    share[dimension] = dimension === 'usd' ? amount / parts : Math.floor(amount / parts);
  }
  return share;
}

/** `headroom` as amounts to reserve (limits it does not name need nothing). */
export function amountsOf(headroom: Headroom): BudgetAmounts {
  return { ...NO_AMOUNTS, ...headroom };
}
