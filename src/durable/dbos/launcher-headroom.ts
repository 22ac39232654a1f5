import { ledgersAbove, openBudget } from '../../budgets/node-budgets.js';
import { lowerTo, type Headroom } from '../../budgets/headroom.js';
import type { Workflow } from '../../core/workflow.js';

/** The owner a headroom budget is named by in refusals: `the headroom from the launcher budget (Child)`. */
const OWNER = 'headroom from the launcher';

/**
 * Runs a child's root workflow on this worker under `headroom`, what the launcher's budgets
 * above it had left when the launcher started it: the launcher cannot reserve on this process's
 * requests, so the child gets a budget of its own that stops it at that amount.
 */
export function runWithinHeadroom<T>(workflow: Workflow<T>, headroom: Headroom | undefined): Promise<T> {
  if (headroom === undefined) return workflow.run();
  const node = workflow.treeNode;
  if (workflow.config.budget === undefined) {
    // Opened before the run: every call's budgets, looked up from its start, include it.
    openBudget(node, headroom, OWNER, (payload) => workflow.emit(node, payload));
    return workflow.run();
  }
  // A root with a budget of its own: its run opens that budget afresh (dropping any other on its
  // node) before run() returns, and calls that start at once look their budgets up then. So that
  // budget takes the headroom's tighter limits instead; whatever was held on it meanwhile counts
  // against them (a request is sent only after DBOS recorded its start, past an await).
  const running = workflow.run();
  for (const ledger of ledgersAbove(node)) lowerTo(ledger, headroom);
  return running;
}
