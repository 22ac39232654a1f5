import type { WorkflowEvent } from '../types/events.js';
import type { LogEntry } from '../types/logging.js';
import type { WorkflowNode } from '../types/node.js';
import type { SerializedBudget, SerializedNode, StateSnapshot } from '../types/serialized.js';
import type { NodeKind, WorkflowStatus } from '../types/status.js';
import type { TokenUsage } from '../types/usage.js';

const NO_BUDGETS: readonly SerializedBudget[] = Object.freeze([]);

/** A node rebuilt from an export: the same read-only view as a live node, frozen in time. */
export class LoadedNode implements WorkflowNode {
  readonly id: string;
  readonly kind: NodeKind;
  readonly name: string;
  readonly workflowId: string;
  readonly status: WorkflowStatus;
  readonly logs: readonly LogEntry[];
  readonly events: readonly WorkflowEvent[];
  readonly stateSnapshot: StateSnapshot | null;
  readonly usage: TokenUsage | null;
  /** The budgets set on the node, as they stood when the run was exported. */
  readonly budgets: readonly SerializedBudget[];
  readonly startTime?: number;
  readonly endTime?: number;
  readonly duration?: number;
  readonly replayed?: boolean;
  readonly dropped: SerializedNode['dropped'];
  readonly children: LoadedNode[] = [];

  private constructor(
    private readonly source: SerializedNode,
    readonly parent: LoadedNode | null,
  ) {
    this.id = source.id;
    this.kind = source.kind;
    this.name = source.name;
    this.workflowId = source.workflowId;
    this.status = source.status;
    this.logs = source.logs;
    this.events = source.events;
    this.stateSnapshot = source.stateSnapshot;
    this.usage = source.usage ?? null;
    this.budgets = Array.isArray(source.budgets) ? source.budgets : NO_BUDGETS;
    if (source.startTime !== undefined) this.startTime = source.startTime;
    if (source.endTime !== undefined) this.endTime = source.endTime;
    if (source.duration !== undefined) this.duration = source.duration;
    if (source.replayed === true) this.replayed = true;
    this.dropped = source.dropped ?? { events: 0, logs: 0, children: 0 };
  }

  /** Rebuilds the tree without recursion: exports of deep chains must load like they render. */
  static load(root: SerializedNode): LoadedNode {
    const top = new LoadedNode(root, null);
    const stack: LoadedNode[] = [top];
    while (stack.length > 0) {
      const node = stack.pop() as LoadedNode;
      for (const child of node.source.children) {
        const loaded = new LoadedNode(child, node);
        node.children.push(loaded);
        stack.push(loaded);
      }
    }
    return top;
  }

  toJSON(): SerializedNode {
    return this.source;
  }
}
