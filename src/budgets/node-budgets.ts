import type { Budget } from '../types/budget.js';
import type { SerializedBudget } from '../types/serialized.js';
import { createNodeKey } from '../util/node-key.js';
import { BudgetLedger, type BudgetEmit } from './budget-ledger.js';
import type { BudgetNode } from './budget-node.js';

/**
 * The budgets set on a node (an agent call may carry its agent's and its prompt's). The key is
 * not exported; a node's export carries the budgets' standing under `budgets`.
 */
const NODE_BUDGETS = createNodeKey<readonly BudgetLedger[]>('budgets', { exportAs: 'budgets', exportValue: standingsOf });

const NONE: readonly BudgetLedger[] = Object.freeze([]);

/** Opens `budget` on `node`: from now on everything below the node counts against it. */
export function openBudget(node: BudgetNode, budget: Readonly<Budget>, owner: string, emit: BudgetEmit): BudgetLedger {
  const ledger = new BudgetLedger(budget, node, owner, emit);
  node.setAttr(NODE_BUDGETS, [...(node.getAttr(NODE_BUDGETS) ?? NONE), ledger]);
  return ledger;
}

/** Forgets the budgets set on `node` (a workflow run again starts with a fresh account). */
export function clearBudgets(node: BudgetNode): void {
  node.setAttr(NODE_BUDGETS, undefined);
}

/** Every budget enclosing `node` (its own included), nearest first; O(depth), asked per request. */
export function ledgersAbove(node: BudgetNode | null | undefined): readonly BudgetLedger[] {
  let found: BudgetLedger[] | undefined;
  for (let at = node ?? null; at !== null; at = at.parent) {
    const own = at.getAttr(NODE_BUDGETS);
    if (own !== undefined) (found ??= []).push(...own);
  }
  return found ?? NONE;
}

/**
 * How the budgets set on `node` stand now; empty when it has none, or when `node` is a view that
 * keeps no values under keys (a node loaded from an export carries its standing itself).
 */
export function budgetStandings(node: object): readonly SerializedBudget[] {
  const live = node as Partial<Pick<BudgetNode, 'getAttr'>>;
  if (typeof live.getAttr !== 'function') return NO_STANDINGS;
  const own = live.getAttr(NODE_BUDGETS);
  return own === undefined ? NO_STANDINGS : standingsOf(own);
}

const NO_STANDINGS: readonly SerializedBudget[] = Object.freeze([]);

function standingsOf(ledgers: readonly BudgetLedger[]): SerializedBudget[] {
  return ledgers.map((ledger) => ledger.toJSON());
}
