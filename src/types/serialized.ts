import type { BudgetDimension } from './budget.js';
import type { WorkflowEvent } from './events.js';
import type { LogEntry } from './logging.js';
import type { NodeKind, WorkflowStatus } from './status.js';
import type { StateSnapshot } from './state.js';
import type { TokenUsage } from './usage.js';

export type { StateSnapshot } from './state.js';

/** The cycle-free, JSON-safe form of a node and its subtree. */
export interface SerializedNode {
  id: string;
  kind: NodeKind;
  name: string;
  workflowId: string;
  parentId: string | null;
  status: WorkflowStatus;
  startTime?: number;
  endTime?: number;
  duration?: number;
  /**
   * Set on a node a durable run served from its store (a replayed step or agent call, everything a
   * replayed step held): its work and its times are from an earlier process.
   */
  replayed?: true;
  stateSnapshot: StateSnapshot | null;
  usage?: TokenUsage;
  /** The budgets set on this node, as they stood (only on nodes that have one). */
  budgets?: SerializedBudget[];
  logs: LogEntry[];
  events: WorkflowEvent[];
  /** Entries dropped by retention limits, so a reader knows the lists are partial. */
  dropped: { events: number; logs: number; children: number; usage?: TokenUsage };
  children: SerializedNode[];
}

/** Amounts of the limits a request or tool call is metered against. */
interface BudgetTotals {
  usd: number;
  tokens: number;
  modelRequests: number;
  toolCalls: number;
}

/**
 * One budget as it stands: its limits now (a raise may have replaced the ones it was set with),
 * what is settled and what work in flight holds (see `BudgetStanding` for one limit in an event).
 */
export interface SerializedBudget {
  /** What the budget is set on: `workflow "research"`, `step "fetch"`, `agent "writer"`. */
  owner: string;
  /** Only the limits the budget sets. */
  limits: Partial<Record<BudgetDimension, number>>;
  spent: BudgetTotals;
  reserved: BudgetTotals;
  warnAt: number;
  /** The limit of the latest refusal (`wallMs` once time ran out); a raise of that limit clears it. */
  exceeded?: BudgetDimension;
}

export interface RunExport {
  format: 'groundswell.run';
  version: 1;
  exportedAt: number;
  root: SerializedNode;
}
