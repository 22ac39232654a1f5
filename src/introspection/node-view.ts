import { TreeNode } from '../core/tree-node.js';
import { Workflow } from '../core/workflow.js';
import { maskAncestry } from '../ancestry/derive-ancestry.js';
import { redactedValues } from '../core/redacted-values.js';
import { runMasker } from '../core/run-secrets.js';
import { normalizeAncestry } from '../ancestry/goal-ancestry.js';
import type { WorkflowNode } from '../types/node.js';
import type { StateSnapshot } from '../types/serialized.js';
import type { NodeKind, WorkflowStatus } from '../types/status.js';

/** What the tools say about one node: identity, status and timing, never its history. */
export interface NodeSummary {
  id: string;
  kind: NodeKind;
  name: string;
  status: WorkflowStatus;
  workflowId: string;
  /** ISO times: easier for a model to read than epoch milliseconds. */
  startedAt?: string;
  endedAt?: string;
  durationMs?: number;
  /** For a node still running: time since it started. */
  elapsedMs?: number;
  children: number;
  /** For an agent call: which agent and model (from its `agentPromptStart` event). */
  agentName?: string;
  model?: string;
}

/** The goal fields a workflow declared, with redacted values masked as in the agent's own prompt. */
export interface GoalFields {
  mission?: string;
  project?: string;
  goal?: string;
}

export interface WorkflowView extends NodeSummary, GoalFields {
  parentWorkflowId: string | null;
  /** The last state snapshot stored on the workflow's node (redacted; hidden fields absent), or null. */
  state: StateSnapshot | null;
}

export function summarize(node: WorkflowNode, now: number): NodeSummary {
  const out: NodeSummary = {
    id: node.id,
    kind: node.kind,
    name: node.name,
    status: node.status,
    workflowId: node.workflowId,
    children: node.children.length + node.dropped.children,
  };
  if (node.startTime !== undefined) out.startedAt = isoTime(node.startTime);
  if (node.endTime !== undefined) out.endedAt = isoTime(node.endTime);
  if (node.duration !== undefined) out.durationMs = roundMs(node.duration);
  if (node.status === 'running' && node.startTime !== undefined) out.elapsedMs = roundMs(Math.max(0, now - node.startTime));
  if (node.kind === 'agentPrompt') {
    const start = node.events.find((event) => event.type === 'agentPromptStart');
    if (start !== undefined && start.type === 'agentPromptStart') {
      out.agentName = start.agentName;
      out.model = start.model;
    }
  }
  return out;
}

/** The workflow a node belongs to (a workflow node belongs to itself). */
export function workflowOf(node: WorkflowNode): Workflow | undefined {
  return node instanceof TreeNode && node.owner instanceof Workflow ? node.owner : undefined;
}

/**
 * `mission`/`project`/`goal` from the workflow's own config (not inherited), cleaned and with
 * the values of `redact: true` fields along its chain (and every secret the run knows) masked.
 */
export function goalFieldsOf(workflow: Workflow): GoalFields {
  const declared: GoalFields = {};
  for (const level of ['mission', 'project', 'goal'] as const) {
    const value = workflow.config[level];
    if (typeof value === 'string') declared[level] = value;
  }
  if (Object.keys(declared).length === 0) return declared;
  const clean = normalizeAncestry(maskAncestry(declared, runMasker(workflow).with(redactedValues(workflow))));
  const out: GoalFields = {};
  if (clean.mission !== undefined) out.mission = clean.mission;
  if (clean.project !== undefined) out.project = clean.project;
  if (clean.goal !== undefined) out.goal = clean.goal;
  return out;
}

export function workflowView(workflow: Workflow, now: number): WorkflowView {
  return {
    ...summarize(workflow.node, now),
    ...goalFieldsOf(workflow),
    parentWorkflowId: workflow.parent?.id ?? null,
    state: workflow.node.stateSnapshot,
  };
}

/** The nearest step or task at or above `node` within its own workflow (never a parent workflow's). */
export function nearestStep(node: WorkflowNode): WorkflowNode | undefined {
  for (let n: WorkflowNode | null = node; n !== null && n.kind !== 'workflow'; n = n.parent) {
    if (n.kind === 'step' || n.kind === 'task') return n;
  }
  return undefined;
}

/** An epoch-ms time as ISO text; a clock that is not epoch-based still gives valid text. */
export function isoTime(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ms) : date.toISOString();
}

/** Milliseconds to 0.01: sub-microsecond digits are noise to a reader. */
export function roundMs(ms: number): number {
  return Math.round(ms * 100) / 100;
}
