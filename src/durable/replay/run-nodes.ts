import { LoadedNode } from '../../debugger/loaded-node.js';
import { usageRollup } from '../../debugger/usage-rollup.js';
import type { WorkflowNode } from '../../types/node.js';
import type { RunExport } from '../../types/serialized.js';
import type { NodeKind, WorkflowStatus } from '../../types/status.js';
import type { TrajectoryAssessment } from '../../types/trajectory.js';
import type { TokenUsage } from '../../types/usage.js';
import { totalTokens } from '../../util/usage.js';
import { agentName, durableKeys } from './durable-keys.js';
import type { Recording } from './recording.js';

/** A goal the judge signed off (`accept`) or refused (`reject`) on a node. */
export interface NodeSignOff {
  readonly goal: string;
  readonly verdict: 'accept' | 'reject';
}

/** One node of a recorded run, as a comparison and a scorer see it. */
export interface RunNode {
  /**
   * Names from the root, `Pipeline › ask#1 › counter`: an agent call is named by its agent (its
   * prompt text may change), and a later same-named sibling keeps its occurrence (`#1`, `#2`).
   */
  readonly path: string;
  readonly name: string;
  readonly kind: NodeKind;
  /** The node's outcome. */
  readonly status: WorkflowStatus;
  /** Its key in the run's journal (a step or an agent call), when it has one. */
  readonly key?: string;
  /**
   * What it answered: an agent call's answer, a step's stored value, the root's result (read from
   * the recording's records, or from the tree when a record cannot be matched).
   */
  readonly answer?: unknown;
  /** Tokens and cost of the node's whole subtree; null when it spent nothing. */
  readonly usage: TokenUsage | null;
  /** All tokens of `usage` (input, output and cache). */
  readonly tokens: number;
  readonly costUsd: number | null;
  readonly durationMs: number | null;
  /** The judge's sign-offs on this node, in order. */
  readonly signOffs: readonly NodeSignOff[];
  /** The trajectory assessments of this node's checkpoints, in order. */
  readonly assessments: readonly TrajectoryAssessment[];
}

/** The nodes of a recording's tree, parents before children; empty when it has no tree. */
export function runNodes(recording: Recording): RunNode[] {
  const exported = recording.tree as Partial<RunExport> | null;
  if (typeof exported !== 'object' || exported === null || typeof exported.root !== 'object' || exported.root === null) return [];
  const root = LoadedNode.load(exported.root);
  const usage = usageRollup(root);
  const keys = durableKeys(root);
  const calls = new Map(recording.calls.map((call) => [call.key, call]));
  const steps = new Map(recording.steps.map((step) => [step.key, step]));
  const paths = new Map<WorkflowNode, string>();
  const nodes: RunNode[] = [];
  const stack: WorkflowNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as WorkflowNode;
    const path = paths.get(node) ?? matchName(node);
    // Same-named siblings stay apart by their occurrence, as durable keys keep them apart.
    const seen = new Map<string, number>();
    for (const child of node.children) {
      const name = matchName(child);
      const before = seen.get(name) ?? 0;
      seen.set(name, before + 1);
      paths.set(child, `${path} › ${before === 0 ? name : `${name}#${before}`}`);
    }
    const key = keys.get(node);
    const spent = usage.get(node) ?? null;
    let answer: unknown;
    if (node.kind === 'agentPrompt') answer = key !== undefined && calls.has(key) ? calls.get(key)?.answer : treeAnswer(node);
    else if (node.kind === 'step' && key !== undefined) answer = steps.get(key)?.value;
    else if (node === root) answer = recording.run.result;
    nodes.push({
      path,
      name: node.name,
      kind: node.kind,
      status: node.status,
      ...(key !== undefined ? { key } : {}),
      ...(answer !== undefined ? { answer } : {}),
      usage: spent,
      tokens: spent === null ? 0 : totalTokens(spent),
      costUsd: spent?.costUsd ?? null,
      durationMs: node.duration ?? null,
      signOffs: node.events.flatMap((e) => (e.type === 'goalSignOff' ? [{ goal: e.goal, verdict: e.verdict }] : [])),
      assessments: node.events.flatMap((e) => (e.type === 'trajectoryCheckpoint' ? [e.assessment] : [])),
    });
    for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i] as WorkflowNode);
  }
  return nodes;
}

/** The name a node is matched by: an agent call's agent, since its node name carries the prompt. */
function matchName(node: WorkflowNode): string {
  if (node.kind !== 'agentPrompt') return node.name;
  const agent = agentName(node);
  if (agent !== undefined) return agent;
  const colon = node.name.indexOf(': ');
  return colon < 0 ? node.name : node.name.slice(0, colon);
}

/** An agent call's answer as its node's end event holds it (JSON text, parsed when it is JSON). */
function treeAnswer(node: WorkflowNode): unknown {
  let output: string | undefined;
  for (const event of node.events) if (event.type === 'agentPromptEnd' && typeof event.output === 'string') output = event.output;
  if (output === undefined) return undefined;
  try {
    return JSON.parse(output) as unknown;
  } catch {
    return output;
  }
}
