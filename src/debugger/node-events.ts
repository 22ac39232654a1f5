import type { BudgetStanding } from '../types/budget.js';
import type { CacheMissEvent, TrajectoryCheckpointEvent } from '../types/events.js';
import { dispatchEventWith, type EventTable } from '../types/event-table.js';
import { formatAmount } from '../budgets/budget-amounts.js';
import type { GoalAncestry } from '../types/goal-ancestry.js';
import type { WorkflowNode } from '../types/node.js';
import type { SerializedError } from '../util/serialize-error.js';

/** What the tree string shows of one node's events, gathered in one pass over them. */
export interface NodeEvents {
  /** The model of the node's agent call (the last start's). */
  model: string;
  /** The one note on how the node ran: cache hit or miss, replayed, replaced, waiting for a signal. */
  cache: string;
  attempts: number;
  apiErrors: number;
  /**
   * The last failure: an error (of an error event or a failed agent call), or what a tool or MCP
   * call that reported an error sent back. Shown with `failureText`.
   */
  failure: SerializedError | string | undefined;
  /** `why …` of the first start given a goal ancestry ('' when it names nothing). */
  why: string | undefined;
  /** The latest trajectory checkpoint (shown with `checkpointText`). */
  checkpoint: TrajectoryCheckpointEvent | undefined;
  /** One line per goal sign-off, in order. */
  signOffs: string[];
  /** One line per budget warning or refusal on this node (the budget's own node), or usage its budgets could not trust (a call's node), in order. */
  budgets: string[];
}

/**
 * What each event adds to its node's lines. A later event overwrites an earlier one's note or
 * failure, as the node's latest state is what a reader debugging it wants.
 */
const TREE_EVENTS: EventTable<void, NodeEvents> = {
  workflowStart: 'ignore',
  workflowEnd: 'ignore',
  childAttached: 'ignore',
  childDetached: 'ignore',
  treeUpdated: 'ignore',
  // The state is read from the node (its last snapshot), not from the events.
  stateSnapshot: 'ignore',
  stepStart: 'ignore',
  stepEnd: (event, seen) => {
    seen.attempts = event.attempts;
  },
  // Retries show as the attempt count its stepEnd reports.
  stepRetry: 'ignore',
  stepReplayed: (_event, seen) => {
    seen.cache = '(replayed)';
  },
  waitStarted: (event, seen) => {
    seen.cache = `(waits for signal "${event.name}")`;
  },
  signalReceived: (event, seen) => {
    seen.cache = `(signal "${event.name}" received)`;
  },
  signalRejected: (event, seen) => {
    seen.cache = `(signal "${event.name}" rejected: ${event.reason ?? 'does not fit'})`;
  },
  taskStart: 'ignore',
  taskEnd: 'ignore',
  error: (event, seen) => {
    seen.failure = event.error;
  },
  // The node's status (⊘) says it; the reason stays in the export and the viewer.
  cancelled: 'ignore',
  observerError: 'ignore',
  agentPromptStart: (event, seen) => {
    // A provider model shows as provider/model; the Anthropic client's model by its id alone.
    seen.model = event.provider === undefined ? event.model : `${event.provider}/${event.model}`;
    if (seen.why === undefined && event.goalAncestry) seen.why = whyLine(event.goalAncestry);
  },
  agentPromptEnd: (event, seen) => {
    if (event.replayed === true) seen.cache = '(replayed)';
    if (event.error) seen.failure = event.error;
  },
  // Its tokens are in the node's usage already.
  agentText: 'ignore',
  modelRequest: 'ignore',
  toolInvocation: (event, seen) => {
    if (event.isError) seen.failure = event.blockedReason ? `blocked: ${event.blockedReason}` : (event.output ?? '');
  },
  mcpEvent: (event, seen) => {
    if (event.isError) seen.failure = event.output ?? '';
  },
  apiError: (_event, seen) => {
    seen.apiErrors += 1;
  },
  promptReplaced: (_event, seen) => {
    seen.cache = '(replaces the answer below)';
  },
  trajectoryCheckpoint: (event, seen) => {
    seen.checkpoint = event;
  },
  contextCompacted: 'ignore',
  goalSignOff: (event, seen) => {
    const note = event.judgeFailed ? ' (judge failed)' : event.verdict === 'reject' ? ` — missing: ${event.missing}` : '';
    seen.signOffs.push(`sign-off ${event.verdict}: ${event.goal}${note}`);
  },
  // On the reflection's own node, whose status and children show how it went.
  reflectionStart: 'ignore',
  reflectionEnd: 'ignore',
  cacheHit: (_event, seen) => {
    seen.cache = '(cache hit)';
  },
  cacheMiss: (event, seen) => {
    seen.cache = missNote(event) || seen.cache;
  },
  // Warnings about the run's services, not about how this node ran.
  cacheStoreError: 'ignore',
  pricingMissing: 'ignore',
  // While a request of the call waits for its budgets; cleared when it stops waiting.
  budgetWaiting: (event, seen) => {
    if (event.phase === 'start') seen.cache = event.reason === 'firstAnswer' ? WAITING_FIRST : `${WAITING} ${budgetText(event)})`;
    else if (seen.cache.startsWith(WAITING)) seen.cache = '';
  },
  budgetWarning: (event, seen) => {
    seen.budgets.push(`budget warning: ${budgetText(event)} (warns at ${Math.round(event.warnAt * 100)}%)`);
  },
  budgetExceeded: (event, seen) => {
    seen.budgets.push(`budget exceeded: ${budgetText(event)}`);
  },
  // On the call's node: why its budgets booked more (or refuse) than its usage alone says.
  budgetUsageUnreliable: (event, seen) => {
    seen.budgets.push(`budget usage ${event.reason}: ${event.provider} model "${event.model}", booked ${event.booked.tokens} tokens (${event.detail})`);
  },
};

/** The node's events as the tree string shows them. */
export function nodeEvents(node: WorkflowNode): NodeEvents {
  const seen: NodeEvents = { model: '', cache: '', attempts: 0, apiErrors: 0, failure: undefined, why: undefined, checkpoint: undefined, signOffs: [], budgets: [] };
  for (const event of node.events) dispatchEventWith(TREE_EVENTS, event, seen, undefined);
  return seen;
}

const WAITING = '(waiting for budget:';
const WAITING_FIRST = `${WAITING} the first answer of its model)`;

/** `usd limit $0.1000, spent $0.0800, reserved $0.0150, needed $0.0200`. */
function budgetText(event: BudgetStanding): string {
  const amount = (value: number): string => formatAmount(event.dimension, value);
  const needed = event.needed > 0 ? `, needed ${amount(event.needed)}` : '';
  return `${event.dimension} limit ${amount(event.limit)}, spent ${amount(event.spent)}, reserved ${amount(event.reserved)}${needed}`;
}

/** `why Mission: … · Goal: …`, or '' when the ancestry names nothing. */
function whyLine(a: GoalAncestry): string {
  const parts = [
    a.mission && `Mission: ${a.mission}`,
    a.project && `Project: ${a.project}`,
    a.goal && `Goal: ${a.goal}`,
    a.task && `Task: ${a.task}`,
  ].filter((part): part is string => typeof part === 'string' && part !== '');
  return parts.length > 0 ? `why ${parts.join(' · ')}` : '';
}

/** The failure as the node's line ends with it; long tool output is cut. */
export function failureText(failure: SerializedError | string): string {
  if (typeof failure !== 'string') return `${failure.name}: ${failure.message}`;
  return failure.length > 120 ? `${failure.slice(0, 117)}...` : failure;
}

/** `checkpoint r3 on-track → next action` (the action cut to 80 columns). */
export function checkpointText(event: TrajectoryCheckpointEvent): string {
  const next = event.checkpoint.nextAction;
  return `checkpoint r${event.revision} ${event.assessment} → ${next.length > 80 ? `${next.slice(0, 77)}...` : next}`;
}

/**
 * A miss worth a note: one with a cause a user would not guess (a first-time `absent`, and
 * `disabled`/`bypassed`, which the user asked for, stay quiet).
 */
function missNote(event: CacheMissEvent): string {
  if (event.reason === 'absent') {
    const differs = event.differs ?? [];
    return differs.length === 0 ? '' : `(cache miss: ${differs.join(', ')} ${differs.length === 1 ? 'differs' : 'differ'})`;
  }
  return event.reason === 'disabled' || event.reason === 'bypassed' ? '' : `(cache miss: ${event.reason})`;
}
