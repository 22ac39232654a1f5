import type { WorkflowEvent } from './events.js';
import type { LogEntry } from './logging.js';
import type { SerializedNode, StateSnapshot } from './serialized.js';
import type { NodeKind, WorkflowStatus } from './status.js';
import type { TokenUsage } from './usage.js';

/** A read-only view of one node of the tree: a workflow, or a step or task run inside one. */
export interface WorkflowNode {
  readonly id: string;
  readonly kind: NodeKind;
  readonly name: string;
  /** The workflow this node belongs to (its own id for a workflow node). */
  readonly workflowId: string;
  readonly parent: WorkflowNode | null;
  readonly children: readonly WorkflowNode[];
  readonly status: WorkflowStatus;
  readonly logs: readonly LogEntry[];
  /**
   * This node's events. On a live node, in the order they reached this process (ids ascending;
   * events relayed from workers may arrive after later ones). On a node loaded from an export, in
   * the order they happened (timestamp, then id).
   */
  readonly events: readonly WorkflowEvent[];
  readonly stateSnapshot: StateSnapshot | null;
  /** Tokens spent by this node itself (an agent prompt); subtree totals come from `usageRollup`. */
  readonly usage: TokenUsage | null;
  readonly startTime?: number;
  readonly endTime?: number;
  readonly duration?: number;
  /** True for a node a durable run replayed: it ran in an earlier process, at its own times (`SerializedNode.replayed`). */
  readonly replayed?: boolean;
  /**
   * What retention dropped from this node: events, logs and finished children, and the tokens
   * those pruned children's subtrees spent (so rollups stay whole).
   */
  readonly dropped: { readonly events: number; readonly logs: number; readonly children: number; readonly usage?: TokenUsage };
  /** The subtree as JSON-safe data, each node's events in the order they happened (timestamp, then id). */
  toJSON(): SerializedNode;
}
