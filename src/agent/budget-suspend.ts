import { budgetRaiseSchema } from '../budgets/budget.schema.js';
import type { BudgetLedger } from '../budgets/budget-ledger.js';
import { BudgetWait } from '../budgets/budget-wait.js';
import { refusedBy, type Reservation } from '../budgets/reservation.js';
import { journalOf, type RunJournal } from '../core/run-journal.js';
import { TreeNode } from '../core/tree-node.js';
import type { Workflow } from '../core/workflow.js';
import { UsageError } from '../errors/groundswell-error.js';
import { waitForBudget } from './budget-waiting.js';
import type { PromptCall } from './prompt-call.js';

const DEFAULT_RAISE_SIGNAL = 'budget';
const NO_WAIT_OPTIONS = Object.freeze({});

/**
 * Runs `attempt`, a synchronous reservation. Only when it must wait (see `waitForBudget`) or a
 * budget refuses it does the answer become a promise (see `reserveAfterRaise`): the usual call
 * pays no await for it.
 */
export function reserveOrRaise<T>(
  call: PromptCall<T>,
  attempt: () => Reservation | undefined,
): Reservation | undefined | Promise<Reservation | undefined> {
  let held: Reservation | undefined;
  try {
    held = attempt();
  } catch (refusal) {
    return reserveAfterRaise(call, refusal, attempt).then((later) => (later?.account === undefined ? later : holdShared(later, call.agentName)));
  }
  return held?.account === undefined ? held : holdShared(held, call.agentName);
}

/** A reservation held here that a budget shares with other processes holds on their account too, before the work starts. */
async function holdShared(held: Reservation, agentName: string): Promise<Reservation> {
  await held.holdShared(`Work of agent "${agentName}"`);
  return held;
}

/**
 * After `refusal` (what a reservation threw): a request that may wait for requests in flight
 * waits for them and is tried again. When a suspending budget refused inside a durable run,
 * waits for that budget's raise signal (the run suspends until it comes) and tries `attempt`
 * again, as often as the raised budget still refuses. Any other refusal is thrown as is.
 */
async function reserveAfterRaise<T, R>(call: PromptCall<T>, refusal: unknown, attempt: () => R): Promise<R> {
  let error = refusal;
  for (;;) {
    if (error instanceof BudgetWait) {
      try {
        return await waitForBudget(call, error, attempt);
      } catch (next) {
        error = next;
        continue;
      }
    }
    const ledger = refusedBy(error);
    const workflow = call.tree.workflow;
    const journal = workflow === undefined ? undefined : journalOf(workflow);
    if (ledger === undefined || !ledger.suspends || workflow === undefined || journal === undefined) throw error;
    await raised(ledger, journal, workflow, call, error);
    try {
      return attempt();
    } catch (next) {
      error = next;
    }
  }
}

/**
 * One wait per budget at a time: calls refused while it waits wait for the same raise (a fan-out
 * that reaches the cap suspends once, and one signal lets all of it go on).
 */
function raised<T>(ledger: BudgetLedger, journal: RunJournal, workflow: Workflow, call: PromptCall<T>, refusal: unknown): Promise<void> {
  if (ledger.raising !== undefined) return ledger.raising;
  const name = ledger.budget.raiseSignal ?? DEFAULT_RAISE_SIGNAL;
  // The wait shows on the budget's own node when it is in this tree.
  const node = ledger.node instanceof TreeNode ? ledger.node : (call.tree.node as TreeNode);
  const waiting = journal
    .waitFor(workflow, node, name, budgetRaiseSchema, NO_WAIT_OPTIONS)
    .then(
      (value) => ledger.raise(value),
      (error: unknown) => {
        // An engine that cannot suspend (DBOS) refuses the wait: the budget fails as 'fail' would.
        throw error instanceof UsageError ? refusal : error;
      },
    )
    .finally(() => {
      ledger.raising = undefined;
    });
  ledger.raising = waiting;
  return waiting;
}
