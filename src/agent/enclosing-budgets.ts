import type { BudgetLedger } from '../budgets/budget-ledger.js';

// Keyed by the prompt object, as fresh starts are: a reflection pass hands over only its prompt.
const handedOn = new WeakMap<object, readonly BudgetLedger[]>();

/**
 * Makes a call of `prompt` outside a workflow count against `ledgers` too: the budgets of the
 * call it works for (a reflection pass on a failed attempt). In a workflow the tree already puts
 * that call's budgets above it.
 */
export function chargeTo<P extends object>(prompt: P, ledgers: readonly BudgetLedger[]): P {
  if (ledgers.length > 0) handedOn.set(prompt, ledgers);
  return prompt;
}

/** The budgets `chargeTo` handed to `prompt`, if any. */
export function chargedBudgets(prompt: object): readonly BudgetLedger[] | undefined {
  return handedOn.get(prompt);
}
