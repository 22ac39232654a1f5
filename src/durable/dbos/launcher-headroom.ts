import { ledgersAbove, openBudget } from '../../budgets/node-budgets.js';
import { lowerTo, type Headroom } from '../../budgets/headroom.js';
import type { Workflow } from '../../core/workflow.js';
import type { BudgetAccount } from '../../budgets/budget-account.js';
import type { BudgetLedger } from '../../budgets/budget-ledger.js';

/** The owner a headroom budget is named by in refusals: `the headroom from the launcher budget (Child)`. */
const OWNER = 'headroom from the launcher';

/**
 * Runs a child's root workflow on this worker under `headroom`, what the launcher's budgets
 * above it had left when the launcher started it: the launcher cannot reserve on this process's
 * requests, so the child gets a budget of its own that stops it at that amount.
 */
export function runWithinHeadroom<T>(workflow: Workflow<T>, headroom: Headroom | undefined, account?: BudgetAccount): Promise<T> {
  if (headroom === undefined) return workflow.run();
  const node = workflow.treeNode;
  if (workflow.config.budget === undefined) {
    // Opened before the run: every call's budgets, looked up from its start, include it.
    const ledger = openBudget(node, headroom, OWNER, (payload) => workflow.emit(node, payload));
    ledger.account = account;
    return workflow.run();
  }
  // A root with a budget of its own: its run opens that budget afresh (dropping any other on its
  // node) before run() returns, and calls that start at once look their budgets up then. So that
  // budget takes the headroom's tighter limits instead; whatever was held on it meanwhile counts
  // against them (a request is sent only after DBOS recorded its start, past an await).
  const running = workflow.run();
  const ledgers = ledgersAbove(node);
  for (const ledger of ledgers) lowerTo(ledger, headroom);
  // The outermost holds on the shared account: one hold there per request.
  if (account !== undefined && ledgers.length > 0) (ledgers[ledgers.length - 1] as BudgetLedger).account = account;
  return running;
}
