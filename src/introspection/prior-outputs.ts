import type { WorkflowEvent } from '../types/events.js';
import { dispatchEventWith, type EventTable } from '../types/event-table.js';
import type { WorkflowNode } from '../types/node.js';
import type { VerifierOutcome } from '../types/trajectory.js';
import type { Caller } from './caller.js';
import { isoTime, roundMs } from './node-view.js';

/** `workflow`: the calling agent's workflow (and the workflows inside it); `run`: the whole tree. */
export type PriorOutputScope = 'workflow' | 'run';

/** One finished piece of earlier work, taken from the event that ended it. */
type PriorOutput =
  | { kind: 'step' | 'task' | 'workflow'; at: string; nodeId: string; name: string; status: string; durationMs?: number; error?: string }
  | { kind: 'stateSnapshot'; at: string; nodeId: string; workflow: string; state: unknown }
  | {
      kind: 'agentPrompt';
      at: string;
      nodeId: string;
      name: string;
      agentName: string;
      status: string;
      turns: number;
      cached: boolean;
      stopReason: string | null;
      output?: unknown;
      error?: string;
    }
  | {
      kind: 'reflection';
      at: string;
      nodeId: string;
      level: string;
      attempt: number;
      status: string;
      critique?: string;
      revision?: { user: string | null; guidance: string };
      error?: string;
    }
  | { kind: 'promptReplaced'; at: string; nodeId: string; replacedNodeId: string }
  | { kind: 'toolCall' | 'mcpCall'; at: string; nodeId: string; toolName: string; input: unknown; output: string | undefined; isError: boolean; server?: string; blockedReason?: string; outcome?: VerifierOutcome };

export interface PriorOutputs {
  scope: PriorOutputScope;
  /** How many entries there were before `limit` applied. */
  total: number;
  /** Most recent first. */
  entries: PriorOutput[];
}

/**
 * Earlier results in the caller's workflow (or run), most recent first: ended steps, tasks,
 * workflows and agent calls, tool results, reflection passes, replaced results and state snapshots, read from the events already in
 * the tree (so only what the tree holds, redacted as it is). The calling agent call itself is left
 * out: its own tool results are already in its conversation.
 */
export function priorOutputs(caller: Caller, scope: PriorOutputScope, limit: number): PriorOutputs {
  const start = scope === 'run' ? caller.root.node : caller.workflow.node;
  const found: Array<{ time: number; order: number; entry: PriorOutput }> = [];
  const stack: WorkflowNode[] = [start];
  while (stack.length > 0) {
    const node = stack.pop() as WorkflowNode;
    if (node === caller.call) continue;
    for (const event of node.events) {
      const entry = entryOf(node, event);
      if (entry !== undefined) found.push({ time: event.timestamp, order: event.id, entry });
    }
    stack.push(...node.children);
  }
  // By time; event ids (one process-wide sequence) break ties, e.g. under a coarse or fake clock.
  found.sort((a, b) => b.time - a.time || b.order - a.order);
  return { scope, total: found.length, entries: found.slice(0, limit).map((item) => item.entry) };
}

function entryOf(node: WorkflowNode, event: WorkflowEvent): PriorOutput | undefined {
  return dispatchEventWith(PRIOR_OUTPUT_EVENTS, event, node, { at: isoTime(event.timestamp), nodeId: node.id });
}

type EntryBase = { readonly at: string; readonly nodeId: string };

function endOf(kind: 'step' | 'task' | 'workflow') {
  return (event: { name: string; status: string; duration?: number }, node: WorkflowNode, base: EntryBase): PriorOutput => {
    const entry: PriorOutput = { kind, ...base, name: event.name, status: event.status };
    if (event.duration !== undefined) entry.durationMs = roundMs(event.duration);
    if (event.status === 'failed') {
      const error = errorOf(node);
      if (error !== undefined) entry.error = error;
    }
    return entry;
  };
}

/** What an agent reading its run's earlier work is shown of each event: the outcomes, not the progress. */
const PRIOR_OUTPUT_EVENTS: EventTable<PriorOutput | undefined, WorkflowNode, EntryBase> = {
  stepEnd: endOf('step'),
  taskEnd: endOf('task'),
  workflowEnd: endOf('workflow'),
  stateSnapshot: (event, node, base) => ({ kind: 'stateSnapshot', ...base, workflow: node.name, state: event.state }),
  agentPromptEnd: (event, node, base) => {
    const entry: PriorOutput = {
      kind: 'agentPrompt',
      ...base,
      name: node.name,
      agentName: event.agentName,
      status: event.status,
      turns: event.turns,
      cached: event.cached,
      stopReason: event.stopReason,
    };
    // The answer itself, once the agent layer records it on the event (see the introspection notes).
    if ('output' in event) entry.output = event.output;
    if (event.error !== undefined) entry.error = event.error.message;
    return entry;
  },
  toolInvocation: (event, _node, base) => {
    const entry: PriorOutput = {
      kind: 'toolCall',
      ...base,
      toolName: event.toolName,
      input: event.input,
      output: event.output,
      isError: event.isError,
    };
    if (event.blockedReason !== undefined) entry.blockedReason = event.blockedReason;
    if (event.outcome !== undefined) entry.outcome = event.outcome;
    return entry;
  },
  reflectionEnd: (event, _node, base) => {
    const entry: PriorOutput = { kind: 'reflection', ...base, level: event.level, attempt: event.attempt, status: event.status };
    if (event.critique !== undefined) entry.critique = event.critique;
    if (event.revision !== undefined) entry.revision = { ...event.revision };
    if (event.error !== undefined) entry.error = event.error.message;
    return entry;
  },
  promptReplaced: (event, _node, base) => ({ kind: 'promptReplaced', ...base, replacedNodeId: event.replacedNodeId }),
  mcpEvent: (event, _node, base) =>
    event.phase !== 'call'
      ? undefined
      : {
          kind: 'mcpCall',
          ...base,
          server: event.server,
          toolName: event.toolName ?? '(unknown)',
          input: event.input,
          output: event.output,
          isError: event.isError === true,
        },
  // Progress, diagnostics and the call's own bookkeeping: not outputs.
  workflowStart: 'ignore',
  childAttached: 'ignore',
  childDetached: 'ignore',
  treeUpdated: 'ignore',
  stepStart: 'ignore',
  stepReplayed: 'ignore',
  waitStarted: 'ignore',
  signalReceived: 'ignore',
  signalRejected: 'ignore',
  stepRetry: 'ignore',
  taskStart: 'ignore',
  error: 'ignore',
  cancelled: 'ignore',
  observerError: 'ignore',
  agentPromptStart: 'ignore',
  agentText: 'ignore',
  modelRequest: 'ignore',
  apiError: 'ignore',
  cacheHit: 'ignore',
  cacheMiss: 'ignore',
  cacheStoreError: 'ignore',
  reflectionStart: 'ignore',
  trajectoryCheckpoint: 'ignore',
  contextCompacted: 'ignore',
  goalSignOff: 'ignore',
  pricingMissing: 'ignore',
  // Progress of the run's spending, not an outcome; a refusal shows as the error of what it failed.
  budgetWaiting: 'ignore',
  budgetWarning: 'ignore',
  budgetExceeded: 'ignore',
  budgetUsageUnreliable: 'ignore',
};

function errorOf(node: WorkflowNode): string | undefined {
  for (const event of node.events) if (event.type === 'error') return event.error.message;
  return undefined;
}
