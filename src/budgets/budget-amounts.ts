import type { BudgetDimension } from '../types/budget.js';

/** The limits a request or tool call is metered against (wallMs is time, not an amount). */
export type MeteredDimension = Exclude<BudgetDimension, 'wallMs'>;

/** What one request or tool call needs (or used) of each metered limit. */
export type BudgetAmounts = Readonly<Record<MeteredDimension, number>>;

export const METERED: readonly MeteredDimension[] = ['usd', 'tokens', 'modelRequests', 'toolCalls'];

export const NO_AMOUNTS: BudgetAmounts = Object.freeze({ usd: 0, tokens: 0, modelRequests: 0, toolCalls: 0 });

/** `$0.1234` for dollars, `120 ms` for time, the plain number for counts. */
export function formatAmount(dimension: BudgetDimension, value: number): string {
  if (dimension === 'usd') return `$${value.toFixed(4)}`;
  if (dimension === 'wallMs') return `${Math.round(value)} ms`;
  return String(value);
}
