import type { BudgetExceededError } from '../budgets/budget-exceeded-error.js';
import type { BudgetLedger } from '../budgets/budget-ledger.js';
import { clearBudgets, openBudget } from '../budgets/node-budgets.js';
import { armWallClock } from '../budgets/wall-clock.js';
import type { Budget } from '../types/budget.js';
import type { TreeNode } from './tree-node.js';
import { isWorkflow, type WorkflowRuntime } from './workflow-runtime.js';

/** A budget opened on a workflow, step or task node while that node runs. */
export interface NodeBudget {
  readonly ledger: BudgetLedger;
  /** `work`, or the budget's error as soon as its wallMs runs out (the work is left to settle). */
  race<R>(work: R | Promise<R>): Promise<Awaited<R>>;
  /** Ends the wallMs timer: the node ended. */
  stop(): void;
}

/**
 * Opens `budget` on `node` of `workflow` and starts its wallMs on the workflow's clock. When the
 * time runs out, the workflows below the node are cancelled (the workflow itself when `node` is
 * its own) and later requests and tool calls below it are refused.
 */
export function startNodeBudget(workflow: WorkflowRuntime, node: TreeNode, budget: Readonly<Budget>, owner: string): NodeBudget {
  clearBudgets(node);
  const ledger = openBudget(node, budget, owner, (payload) => workflow.emit(node, payload));
  let fail: ((error: BudgetExceededError) => void) | undefined;
  const expired = new Promise<never>((_resolve, reject) => (fail = reject));
  // Nobody may be racing when the time runs out (the node already waits on children only).
  expired.catch(() => undefined);
  const stop = armWallClock(ledger, workflow.clock, (error) => {
    if (node === workflow.treeNode) workflow.cancel(`budget ran out: ${error.message}`);
    else cancelWorkflowsBelow(node, error);
    fail?.(error);
  });
  return {
    ledger,
    race: (work) => Promise.race([work, expired]) as Promise<Awaited<typeof work>>,
    stop,
  };
}

/** Cancels every workflow whose node hangs below `node` (each cancel covers its own subtree). */
function cancelWorkflowsBelow(node: TreeNode, error: BudgetExceededError): void {
  const stack = [...node.children];
  while (stack.length > 0) {
    const at = stack.pop() as TreeNode;
    if (at.kind === 'workflow' && isWorkflow(at.owner) && at.owner.treeNode === at) at.owner.cancel(`budget ran out: ${error.message}`);
    else stack.push(...at.children);
  }
}
