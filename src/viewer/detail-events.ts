import type { EventTable } from '../types/event-table.js';
import type {
  AgentPromptEndEvent,
  AgentPromptStartEvent,
  BudgetExceededEvent,
  BudgetWarningEvent,
  GoalSignOffEvent,
  McpEvent,
  ModelRequestEvent,
  ToolInvocationEvent,
  TrajectoryCheckpointEvent,
} from '../types/events.js';
import type { SerializedError } from '../util/serialize-error.js';

export type PromptPart = Pick<AgentPromptStartEvent, 'agentName' | 'model' | 'promptId' | 'goalAncestry'>;
export type AnswerPart = Omit<AgentPromptEndEvent, 'id' | 'nodeId' | 'workflowId' | 'timestamp' | 'type'>;
export type CheckpointPart = Pick<TrajectoryCheckpointEvent, 'revision' | 'assessment' | 'injected' | 'checkpoint'>;
export type BudgetEventPart = BudgetWarningEvent | BudgetExceededEvent;

/** What a node's events add to its details, gathered in one pass over them (the latest wins where one is kept). */
export interface DetailParts {
  error: SerializedError | null;
  prompt: PromptPart | null;
  answer: AnswerPart | null;
  checkpoint: CheckpointPart | null;
  readonly tools: ToolInvocationEvent[];
  readonly mcpCalls: McpEvent[];
  readonly signOffs: GoalSignOffEvent[];
  readonly requests: ModelRequestEvent[];
  readonly budgetEvents: BudgetEventPart[];
}

export function emptyParts(): DetailParts {
  return { error: null, prompt: null, answer: null, checkpoint: null, tools: [], mcpCalls: [], signOffs: [], requests: [], budgetEvents: [] };
}

/**
 * Which of a node's own events its details show. Every event type is listed, so a new one does
 * not compile until the viewer decides whether its details show it.
 */
export const OWN_EVENTS: EventTable<void, DetailParts> = {
  workflowStart: 'ignore',
  workflowEnd: 'ignore',
  childAttached: 'ignore',
  childDetached: 'ignore',
  treeUpdated: 'ignore',
  // The node's state is read from the node itself.
  stateSnapshot: 'ignore',
  stepStart: 'ignore',
  stepEnd: 'ignore',
  stepReplayed: 'ignore',
  // The root's wait is the page's banner (serve-viewer), not a detail.
  waitStarted: 'ignore',
  signalReceived: 'ignore',
  signalRejected: 'ignore',
  stepRetry: 'ignore',
  taskStart: 'ignore',
  taskEnd: 'ignore',
  error: (event, parts) => {
    parts.error = event.error;
  },
  cancelled: 'ignore',
  observerError: 'ignore',
  agentPromptStart: (event, parts) => {
    parts.prompt = { agentName: event.agentName, model: event.provider === undefined ? event.model : `${event.provider}/${event.model}`, promptId: event.promptId, ...(event.goalAncestry ? { goalAncestry: event.goalAncestry } : {}) };
  },
  agentPromptEnd: (event, parts) => {
    const { id: _id, nodeId: _n, workflowId: _w, timestamp: _t, type: _type, ...rest } = event;
    parts.answer = rest;
  },
  toolInvocation: (event, parts) => {
    parts.tools.push(event);
  },
  mcpEvent: (event, parts) => {
    if (event.phase === 'call') parts.mcpCalls.push(event);
  },
  // Pieces of an answer: the whole answer is in agentPromptEnd.
  agentText: 'ignore',
  modelRequest: (event, parts) => {
    parts.requests.push(event);
  },
  apiError: 'ignore',
  cacheHit: 'ignore',
  cacheMiss: 'ignore',
  cacheStoreError: 'ignore',
  reflectionStart: 'ignore',
  reflectionEnd: 'ignore',
  promptReplaced: 'ignore',
  trajectoryCheckpoint: (event, parts) => {
    parts.checkpoint = { revision: event.revision, assessment: event.assessment, injected: event.injected, checkpoint: event.checkpoint };
  },
  contextCompacted: 'ignore',
  goalSignOff: (event, parts) => {
    parts.signOffs.push(event);
  },
  pricingMissing: 'ignore',
  // A call waiting for budget shows in the tree debugger and the progress display; here its budget's standing.
  budgetWaiting: 'ignore',
  // On the budget's own node: its Budget section lists them under the standing.
  budgetWarning: (event, parts) => {
    parts.budgetEvents.push(event);
  },
  budgetExceeded: (event, parts) => {
    parts.budgetEvents.push(event);
  },
  // Shown by the tree debugger and spans; the viewer shows the budget's standing it changed.
  budgetUsageUnreliable: 'ignore',
};

/**
 * Which events of an agent call's tool-call children its details show: the calls' tools, and a
 * CompleteGoal tool's sign-off.
 */
export const TOOL_CALL_CHILD_EVENTS: EventTable<void, DetailParts> = {
  workflowStart: 'ignore',
  workflowEnd: 'ignore',
  childAttached: 'ignore',
  childDetached: 'ignore',
  treeUpdated: 'ignore',
  stateSnapshot: 'ignore',
  stepStart: 'ignore',
  stepEnd: 'ignore',
  stepReplayed: 'ignore',
  waitStarted: 'ignore',
  signalReceived: 'ignore',
  signalRejected: 'ignore',
  stepRetry: 'ignore',
  taskStart: 'ignore',
  taskEnd: 'ignore',
  error: 'ignore',
  cancelled: 'ignore',
  observerError: 'ignore',
  agentPromptStart: 'ignore',
  agentPromptEnd: 'ignore',
  toolInvocation: (event, parts) => {
    parts.tools.push(event);
  },
  mcpEvent: 'ignore',
  // Pieces of an answer: the whole answer is in agentPromptEnd.
  agentText: 'ignore',
  modelRequest: 'ignore',
  apiError: 'ignore',
  cacheHit: 'ignore',
  cacheMiss: 'ignore',
  cacheStoreError: 'ignore',
  reflectionStart: 'ignore',
  reflectionEnd: 'ignore',
  promptReplaced: 'ignore',
  trajectoryCheckpoint: 'ignore',
  contextCompacted: 'ignore',
  goalSignOff: (event, parts) => {
    parts.signOffs.push(event);
  },
  pricingMissing: 'ignore',
  // A budget's events are on the budget's own node, and a tool call has no budget.
  budgetWaiting: 'ignore',
  budgetWarning: 'ignore',
  budgetExceeded: 'ignore',
  budgetUsageUnreliable: 'ignore',
};
