import { METERED, type BudgetAmounts } from '../../budgets/budget-amounts.js';

// The key that marks a recorded step output as value plus spending; no user value is expected to carry it.
const SPENT = 'groundswell.spent';

/**
 * What DBOS records of a step whose work spent something under a budget: the step's value and
 * what its calls and DBOS children spent. A process that replays the step (it recovered the run)
 * runs none of them, so it books that instead. Other steps record their value alone, as before.
 */
export function stepRecord(value: unknown, spent: BudgetAmounts): Record<string, unknown> {
  return { [SPENT]: { ...spent }, value };
}

/** The step's value and, when it was recorded with it, what the step's work spent. */
export function readStepRecord(recorded: unknown): { readonly value: unknown; readonly spent?: BudgetAmounts } {
  if (typeof recorded !== 'object' || recorded === null || !Object.hasOwn(recorded, SPENT)) return { value: recorded };
  const { [SPENT]: raw, value } = recorded as Record<string, unknown>;
  const spent: Record<string, number> = {};
  for (const dimension of METERED) {
    const amount = (raw as Record<string, unknown> | null | undefined)?.[dimension];
    spent[dimension] = typeof amount === 'number' && Number.isFinite(amount) ? amount : 0;
  }
  return { value, spent: spent as BudgetAmounts };
}
