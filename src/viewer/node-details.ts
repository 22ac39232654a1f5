import { budgetsOf } from '../debugger/budget-standing.js';
import { dispatchEventWith } from '../types/event-table.js';
import type { GoalSignOffEvent, McpEvent, ToolInvocationEvent, WorkflowEvent } from '../types/events.js';
import type { GoalAncestry } from '../types/goal-ancestry.js';
import type { LogEntry } from '../types/logging.js';
import type { WorkflowNode } from '../types/node.js';
import type { SerializedBudget, StateSnapshot } from '../types/serialized.js';
import type { NodeKind, WorkflowStatus } from '../types/status.js';
import type { TokenUsage } from '../types/usage.js';
import type { SerializedError } from '../util/serialize-error.js';
import { conversationTurns, type ConversationTurn } from './conversation.js';
import { emptyParts, OWN_EVENTS, TOOL_CALL_CHILD_EVENTS, type AnswerPart, type BudgetEventPart, type CheckpointPart, type PromptPart } from './detail-events.js';

/** What the page shows for a selected node; read from the tree, which the run's masker already masked. */
export interface NodeDetails {
  readonly id: string;
  readonly kind: NodeKind;
  readonly name: string;
  readonly status: WorkflowStatus;
  readonly workflowId: string;
  readonly startTime?: number;
  readonly endTime?: number;
  readonly duration?: number;
  /** A node a durable run replayed: it ran in an earlier process, and its times are from then. */
  readonly replayed?: true;
  /** Root first, the node's parent last. */
  readonly path: ReadonlyArray<{ readonly id: string; readonly name: string; readonly kind: NodeKind }>;
  readonly usage: TokenUsage | null;
  readonly stateSnapshot: StateSnapshot | null;
  readonly logs: readonly LogEntry[];
  readonly events: readonly WorkflowEvent[];
  readonly dropped: WorkflowNode['dropped'];
  /** `Mission: … · Goal: …` from the call's `agentPromptStart` (the debugger's `why` line); '' when none. */
  readonly why: string;
  /** Why the node failed, with its cause chain (the latest error event, or a failed agent call's error); null when none. */
  readonly error: SerializedError | null;
  readonly prompt: PromptPart | null;
  readonly answer: AnswerPart | null;
  /** This node's tool calls and those of its direct tool-call children (an agent call's tools). */
  readonly tools: readonly ToolInvocationEvent[];
  readonly mcpCalls: readonly McpEvent[];
  /** An agent call's model requests in order, each with the tool uses its answer asked for. */
  readonly turns: readonly ConversationTurn[];
  /** The latest checkpoint, exactly as its event carries it. */
  readonly checkpoint: CheckpointPart | null;
  /** Sign-offs on this node and its direct tool-call children. */
  readonly signOffs: readonly GoalSignOffEvent[];
  /** The budgets set on this node as they stand now: limits, spent and reserved (empty when none). */
  readonly budgets: readonly SerializedBudget[];
  /** Their warnings and refusals, in order (a budget's events are on its own node). */
  readonly budgetEvents: readonly BudgetEventPart[];
}

export function nodeDetails(node: WorkflowNode): NodeDetails {
  const events = node.events;
  const path: Array<NodeDetails['path'][number]> = [];
  for (let n = node.parent; n !== null; n = n.parent) path.unshift({ id: n.id, name: n.name, kind: n.kind });
  const parts = emptyParts();
  for (const event of events) dispatchEventWith(OWN_EVENTS, event, parts, undefined);
  // An agent call's tools (and a CompleteGoal tool's sign-off) happen on its tool-call children.
  for (const child of node.children) {
    if (child.kind !== 'toolCall') continue;
    for (const event of child.events) dispatchEventWith(TOOL_CALL_CHILD_EVENTS, event, parts, undefined);
  }
  const { prompt, answer, checkpoint, tools, mcpCalls, signOffs, budgetEvents } = parts;
  return {
    id: node.id,
    kind: node.kind,
    name: node.name,
    status: node.status,
    workflowId: node.workflowId,
    ...(node.startTime !== undefined ? { startTime: node.startTime } : {}),
    ...(node.endTime !== undefined ? { endTime: node.endTime } : {}),
    ...(node.duration !== undefined ? { duration: node.duration } : {}),
    ...(node.replayed === true ? { replayed: true as const } : {}),
    path,
    usage: node.usage,
    stateSnapshot: node.stateSnapshot,
    logs: node.logs,
    events,
    dropped: node.dropped,
    why: whyLine(prompt?.goalAncestry),
    error: parts.error ?? answer?.error ?? null,
    prompt,
    answer,
    tools,
    mcpCalls,
    turns: conversationTurns(parts.requests, tools),
    checkpoint,
    signOffs,
    budgets: budgetsOf(node),
    budgetEvents,
  };
}

function whyLine(ancestry: GoalAncestry | undefined): string {
  if (ancestry === undefined) return '';
  const parts = [
    ancestry.mission && `Mission: ${ancestry.mission}`,
    ancestry.project && `Project: ${ancestry.project}`,
    ancestry.goal && `Goal: ${ancestry.goal}`,
    ancestry.task && `Task: ${ancestry.task}`,
  ].filter((part): part is string => typeof part === 'string' && part !== '');
  return parts.join(' · ');
}
