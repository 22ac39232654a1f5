/**
 * A spending limit on a subtree of the run: everything below the node it is set on (child and
 * spawned workflows, agent calls, the judge, reflection) counts against it. Nested budgets all
 * hold; the tightest decides.
 */
export interface Budget {
  /** US dollars, at the agents' `pricing` (a model without a price is a UsageError). */
  usd?: number;
  /** Input plus output tokens (cache reads and writes included). */
  tokens?: number;
  /** Requests sent to a model (cache hits and replayed calls send none). */
  modelRequests?: number;
  /** Tool calls the model asked for and that ran. */
  toolCalls?: number;
  /** Milliseconds from the budgeted node's start; the subtree is cancelled when they run out. */
  wallMs?: number;
  /** Share of a limit at which a `budgetWarning` is emitted once (0 < warnAt <= 1; default 0.8). */
  warnAt?: number;
  /**
   * At the cap: `'fail'` (default) fails the subtree with `BudgetExceededError`; `'suspend'`, in a
   * durable run, suspends the run until a signal raises the budget (`raiseSignal`), then goes on.
   * Outside a durable run, `'suspend'` fails like `'fail'`.
   */
  onExceeded?: 'fail' | 'suspend';
  /** The signal that raises a suspended budget (default `'budget'`); its value is a `BudgetRaise`. */
  raiseSignal?: string;
}

/**
 * The value of the signal that raises a suspended budget: new limits, replacing the old ones
 * (absolute amounts, not increments, so sending the same raise twice changes nothing).
 */
export interface BudgetRaise {
  usd?: number;
  tokens?: number;
  modelRequests?: number;
  toolCalls?: number;
}

/** One limit of a budget. */
export type BudgetDimension = 'usd' | 'tokens' | 'modelRequests' | 'toolCalls' | 'wallMs';

/** Where a budget is and how one of its limits stands, as events and errors report it. */
export interface BudgetStanding {
  /** The node the budget is set on. */
  readonly budgetNodeId: string;
  /** That node's path from the root, names joined by ` / `. */
  readonly budgetPath: string;
  readonly dimension: BudgetDimension;
  readonly limit: number;
  /** Settled so far (for wallMs: the time elapsed). */
  readonly spent: number;
  /** Held by requests and tool calls in flight. */
  readonly reserved: number;
  /** What the request or tool call that crossed the line needed (0 when time ran out). */
  readonly needed: number;
}
