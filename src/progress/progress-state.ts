import type { BudgetExceededEvent, BudgetWarningEvent, WorkflowEvent } from '../types/events.js';
import { formatAmount } from '../budgets/budget-amounts.js';
import { dispatchEventWith, type EventTable } from '../types/event-table.js';
import type { NodeKind, WorkflowStatus } from '../types/status.js';

/** How many nodes of one kind are running, finished well, failed, were cancelled or wait for a signal. */
export interface KindCounts {
  running: number;
  done: number;
  failed: number;
  cancelled: number;
  suspended: number;
}

/** Kinds the display counts, in the order it shows them. */
export const COUNTED_KINDS = ['workflow', 'step', 'task', 'agentPrompt', 'toolCall', 'mcpCall', 'reflection'] as const satisfies readonly NodeKind[];
type CountedKind = (typeof COUNTED_KINDS)[number];

/** A node that finished, as the display may print it. */
interface Finished {
  kind: CountedKind;
  name: string;
  status: WorkflowStatus;
  duration?: number;
}

/**
 * What a progress display knows about one run, folded from its events as they arrive. Memory is
 * bounded by what is running at once: a node is held from its start event to its end event only
 * (finished nodes are counters), so a run of 10 000 steps costs what a run of ten does.
 */
export class ProgressState {
  readonly counts: Record<CountedKind, KindCounts> = freshCounts();
  /** Running nodes by id, oldest first (Map keeps insertion order). */
  readonly running = new Map<string, { readonly kind: CountedKind; readonly name: string; readonly workflowId: string }>();
  inputTokens = 0;
  outputTokens = 0;
  costUsd: number | undefined;
  rootName = '';
  rootStatus: WorkflowStatus = 'running';
  /** The latest budget warning or refusal, as the usage line shows it. */
  budget: string | undefined;
  /** How the root's own budget stands (`usd $0.04 spent + $0.01 reserved of $0.10`), refreshed before each drawing. */
  rootBudget: string | undefined;
  /** The signal the run waits for, once a wait started (a durable run's `waitFor`). */
  waitingFor: string | undefined;
  /** Agent calls whose request waits for budget, by node id (at most what is running). */
  readonly budgetWaits = new Set<string>();
  /** Bumped on every change the display shows, so a redraw can be skipped when nothing changed. */
  version = 0;

  /** Folds one event in; returns a line worth printing on its own (a workflow or failure finishing), if any. */
  apply(event: WorkflowEvent): Finished | undefined {
    return dispatchEventWith(PROGRESS_EVENTS, event, this, undefined);
  }

  /** A node of a counted kind started (once: a repeated start is not counted again). */
  start(workflowId: string, nodeId: string, kind: CountedKind, name: string): undefined {
    if (!this.running.has(nodeId)) {
      this.running.set(nodeId, { kind, name, workflowId });
      this.counts[kind].running++;
      this.version++;
    }
    return undefined;
  }

  /** A node of a counted kind finished with `status`: its line, for the caller to print or not. */
  end(nodeId: string, kind: CountedKind, name: string, status: WorkflowStatus, duration?: number): Finished {
    // A node whose start came before the display was attached was never counted as running.
    if (this.running.delete(nodeId)) this.counts[kind].running--;
    const counts = this.counts[kind];
    if (status === 'completed') counts.done++;
    else if (status === 'cancelled') counts.cancelled++;
    else if (status === 'suspended') counts.suspended++;
    else counts.failed++;
    this.version++;
    return { kind, name, status, ...(duration !== undefined ? { duration } : {}) };
  }
}

/**
 * What each event does to the display's state: start or end a counted node, add an agent call's
 * tokens, note the signal a durable run waits for; `'ignore'` for what the display does not show.
 */
const PROGRESS_EVENTS: EventTable<Finished | undefined, ProgressState> = {
  workflowStart: (event, state) => state.start(event.workflowId, event.nodeId, 'workflow', event.name),
  workflowEnd: (event, state) => state.end(event.nodeId, 'workflow', event.name, event.status, event.duration),
  childAttached: 'ignore',
  childDetached: 'ignore',
  treeUpdated: 'ignore',
  stateSnapshot: 'ignore',
  stepStart: (event, state) => state.start(event.workflowId, event.nodeId, 'step', event.name),
  stepEnd: (event, state) => state.end(event.nodeId, 'step', event.name, event.status, event.duration),
  stepRetry: 'ignore',
  stepReplayed: 'ignore',
  waitStarted: (event, state) => {
    state.waitingFor = event.name;
    state.version++;
    return undefined;
  },
  signalReceived: 'ignore',
  signalRejected: 'ignore',
  taskStart: (event, state) => state.start(event.workflowId, event.nodeId, 'task', event.name),
  taskEnd: (event, state) => state.end(event.nodeId, 'task', event.name, event.status, event.duration),
  // A failure or a cancellation shows as the status its node ends with.
  error: 'ignore',
  cancelled: 'ignore',
  observerError: 'ignore',
  agentPromptStart: (event, state) => state.start(event.workflowId, event.nodeId, 'agentPrompt', event.agentName),
  agentPromptEnd: (event, state) => {
    state.budgetWaits.delete(event.nodeId);
    state.inputTokens += event.usage.inputTokens + event.usage.cacheCreationInputTokens + event.usage.cacheReadInputTokens;
    state.outputTokens += event.usage.outputTokens;
    if (event.usage.costUsd !== undefined) state.costUsd = (state.costUsd ?? 0) + event.usage.costUsd;
    return state.end(event.nodeId, 'agentPrompt', event.agentName, event.status, event.duration);
  },
  // The call's tokens are counted once, from its agentPromptEnd.
  agentText: 'ignore',
  modelRequest: 'ignore',
  // A tool call's node has no start event the display sees: it is counted when it ends.
  toolInvocation: (event, state) => state.end(event.nodeId, 'toolCall', event.toolName, event.isError ? 'failed' : 'completed', event.duration),
  mcpEvent: (event, state) =>
    event.phase === 'call' ? state.end(event.nodeId, 'mcpCall', event.toolName ?? event.server, event.isError === true ? 'failed' : 'completed') : undefined,
  apiError: 'ignore',
  promptReplaced: 'ignore',
  trajectoryCheckpoint: 'ignore',
  contextCompacted: 'ignore',
  goalSignOff: 'ignore',
  reflectionStart: (event, state) => state.start(event.workflowId, event.nodeId, 'reflection', `reflection (${event.level})`),
  reflectionEnd: (event, state) => state.end(event.nodeId, 'reflection', `reflection (${event.level})`, event.status),
  cacheHit: 'ignore',
  cacheMiss: 'ignore',
  cacheStoreError: 'ignore',
  pricingMissing: 'ignore',
  budgetWaiting: (event, state) => {
    if (event.phase === 'start') state.budgetWaits.add(event.nodeId);
    else state.budgetWaits.delete(event.nodeId);
    state.version++;
    return undefined;
  },
  budgetWarning: (event, state) => noteBudget(state, event, 'near'),
  budgetExceeded: (event, state) => noteBudget(state, event, 'exceeded'),
  // What it booked shows in the budget's standing; a refusal it leads to is a budgetExceeded.
  budgetUsageUnreliable: 'ignore',
};

/** `budget usd exceeded: $0.0900 spent + $0.0100 reserved of $0.1000` (the latest one wins). */
function noteBudget(state: ProgressState, event: BudgetWarningEvent | BudgetExceededEvent, how: 'near' | 'exceeded'): undefined {
  const amount = (value: number): string => formatAmount(event.dimension, value);
  state.budget = `budget ${event.dimension} ${how}: ${amount(event.spent)} spent + ${amount(event.reserved)} reserved of ${amount(event.limit)}`;
  state.version++;
  return undefined;
}

function freshCounts(): Record<CountedKind, KindCounts> {
  const counts = {} as Record<CountedKind, KindCounts>;
  for (const kind of COUNTED_KINDS) counts[kind] = { running: 0, done: 0, failed: 0, cancelled: 0, suspended: 0 };
  return counts;
}
