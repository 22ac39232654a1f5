import type { BudgetLedger } from '../budgets/budget-ledger.js';
import type { BudgetNode } from '../budgets/budget-node.js';
import { LooseNode } from '../budgets/loose-node.js';
import { ledgersAbove, openBudget } from '../budgets/node-budgets.js';
import { armWallClock } from '../budgets/wall-clock.js';
import type { Budget } from '../types/budget.js';
import { systemClock } from '../util/clock.js';
import type { CallTree } from './call-tree.js';

const NONE: readonly BudgetLedger[] = Object.freeze([]);

/**
 * Opens the agent's and the prompt's budgets on the call's node (a loose one outside a workflow)
 * and returns every budget enclosing the call, nearest first. Outside a workflow nothing encloses
 * a call but the budgets `handedOn` by the call it works for (its reflection pass). A wallMs above
 * the call also stops its requests in flight.
 */
export function callBudgets(
  tree: CallTree,
  agentName: string,
  agentBudget: Budget | undefined,
  promptBudget: Budget | undefined,
  promptName: string,
  handedOn?: readonly BudgetLedger[],
): readonly BudgetLedger[] {
  let node: BudgetNode | undefined = tree.node;
  if (agentBudget !== undefined || promptBudget !== undefined) {
    node ??= new LooseNode(agentName);
    const emit = tree.emit.bind(tree);
    if (agentBudget !== undefined) openBudget(node, agentBudget, `agent "${agentName}"`, emit);
    if (promptBudget !== undefined) openBudget(node, promptBudget, `prompt "${promptName}"`, emit);
  }
  const outer = tree.node === undefined ? handedOn : undefined;
  if (node === undefined && outer === undefined) return NONE;
  const own = node === undefined ? NONE : ledgersAbove(node);
  const ledgers = outer === undefined ? own : [...own, ...outer];
  // Most budgets have no wallMs: no arrays for them.
  if (ledgers.some((ledger) => ledger.budget.wallMs !== undefined)) {
    tree.limitBy(ledgers.filter((ledger) => ledger.budget.wallMs !== undefined).map((ledger) => ledger.signal));
  }
  return ledgers;
}

/** Starts the wallMs of the call's own budgets; the returned function stops them when the call ends (undefined: none started). */
export function armCallBudgets(tree: CallTree, ledgers: readonly BudgetLedger[]): (() => void) | undefined {
  let stops: Array<() => void> | undefined;
  let armed: BudgetLedger[] | undefined;
  for (const ledger of ledgers) {
    // Budgets of enclosing nodes are timed by those nodes; only the call's own start here (outside
    // a workflow every budget of the call is its own, but for those handed on, timed already).
    if (ledger.budget.wallMs === undefined || (tree.node !== undefined && ledger.node !== tree.node) || timed.has(ledger)) continue;
    (stops ??= []).push(armWallClock(ledger, tree.workflow?.clock ?? systemClock, () => undefined));
    (armed ??= []).push(ledger);
    timed.add(ledger);
  }
  if (stops === undefined) return undefined;
  const all = stops;
  const mine = armed ?? [];
  return () => {
    for (const stop of all) stop();
    for (const ledger of mine) timed.delete(ledger);
  };
}

// Ledgers whose wallMs runs now: a call given its caller's budgets must not start that clock again.
const timed = new WeakSet<BudgetLedger>();
