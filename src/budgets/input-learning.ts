import type { BudgetAmounts } from './budget-amounts.js';
import type { BudgetLedger } from './budget-ledger.js';
import { BudgetWait } from './budget-wait.js';
import { InputRatios, type ModelInput } from './input-ratios.js';
import type { Reservation } from './reservation.js';
import { WaitQueue } from './wait-queue.js';

/** The input ratios of the budget tree `ledgers` belong to (nearest first: the last is the outermost). */
export function inputRatiosOf(ledgers: readonly BudgetLedger[]): InputRatios {
  const outermost = ledgers[ledgers.length - 1] as BudgetLedger;
  return (outermost.inputRatios ??= new InputRatios());
}

/**
 * A request to `model` was reserved: its estimate goes with it, and when the model has no answer
 * yet this request is its first, the only one in flight until it settles.
 */
export function noteSent(held: Reservation, model: ModelInput, estimated: number): void {
  held.estimate = { model, tokens: estimated };
  if (model.ratio !== undefined) return;
  model.firstInFlight = true;
  held.whenSettled(() => {
    model.firstInFlight = false;
    // Learned from its answer, or not (it failed): the next request to the model goes either way.
    model.waiting?.wake();
  });
}

/** The answer to `held`'s request reported `input` tokens of input (cache reads and writes included). */
export function learnInput(held: Reservation, input: number): void {
  const estimate = held.estimate;
  if (estimate === undefined || !Number.isFinite(input) || input < 0) return;
  const ratio = Math.max(1, input / estimate.tokens);
  const model = estimate.model;
  if (model.ratio === undefined || ratio > model.ratio) model.ratio = ratio;
}

/** The wait of a request to `model` while its first request is in flight, showing the first budget that meters input. */
export function firstAnswerWait(ledgers: readonly BudgetLedger[], model: ModelInput, need: BudgetAmounts, what: string): BudgetWait {
  const ledger = ledgers.find((at) => at.limit('usd') !== undefined) ?? (ledgers.find((at) => at.limit('tokens') !== undefined) as BudgetLedger);
  const dimension = ledger.limit('usd') !== undefined ? 'usd' : 'tokens';
  return new BudgetWait(
    `${what} waits for the first answer of its model under the ${ledger.owner} budget (${ledger.path}): until then its input is unknown.`,
    (model.waiting ??= new WaitQueue()),
    ledger.standing(dimension, need[dimension]),
    'firstAnswer',
  );
}
