import type { WorkflowEvent } from '../types/events.js';
import type { LogEntry } from '../types/logging.js';
import type { WorkflowNode } from '../types/node.js';
import type { SerializedBudget, SerializedNode, StateSnapshot } from '../types/serialized.js';
import type { NodeKind, WorkflowStatus } from '../types/status.js';
import type { TokenUsage } from '../types/usage.js';
import { inTimeOrder } from '../util/time-order.js';

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
  // False when this node's or a descendant's events had to be put in time order: `toJSON` then
  // rebuilds the subtree rather than return the export it was loaded from.
  private asLoaded: boolean;

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
    // In the order the events happened, as exports give them (an older or hand-made export may not).
    this.events = inTimeOrder(source.events);
    this.stateSnapshot = source.stateSnapshot;
    this.usage = source.usage ?? null;
    this.budgets = Array.isArray(source.budgets) ? source.budgets : NO_BUDGETS;
    if (source.startTime !== undefined) this.startTime = source.startTime;
    if (source.endTime !== undefined) this.endTime = source.endTime;
    if (source.duration !== undefined) this.duration = source.duration;
    if (source.replayed === true) this.replayed = true;
    this.dropped = source.dropped ?? { events: 0, logs: 0, children: 0 };
    this.asLoaded = this.events === source.events;
  }

  /** Rebuilds the tree without recursion: exports of deep chains must load like they render. */
  static load(root: SerializedNode): LoadedNode {
    const top = new LoadedNode(root, null);
    const made: LoadedNode[] = [top];
    const stack: LoadedNode[] = [top];
    while (stack.length > 0) {
      const node = stack.pop() as LoadedNode;
      for (const child of node.source.children) {
        const loaded = new LoadedNode(child, node);
        node.children.push(loaded);
        made.push(loaded);
        stack.push(loaded);
      }
    }
    // Children were made after their parents: in reverse, a node hears from its children first.
    for (let i = made.length - 1; i > 0; i -= 1) {
      const node = made[i] as LoadedNode;
      if (!node.asLoaded && node.parent !== null) node.parent.asLoaded = false;
    }
    return top;
  }

  /** The export it was loaded from, or, where events had to be put in time order, a copy with them so. */
  toJSON(): SerializedNode {
    if (this.asLoaded) return this.source;
    const top: SerializedNode = { ...this.source, events: [...this.events], children: [] };
    const stack: Array<{ node: LoadedNode; out: SerializedNode }> = [{ node: this, out: top }];
    while (stack.length > 0) {
      const { node, out } = stack.pop() as { node: LoadedNode; out: SerializedNode };
      for (const child of node.children) {
        if (child.asLoaded) {
          out.children.push(child.source);
          continue;
        }
        const childOut: SerializedNode = { ...child.source, events: [...child.events], children: [] };
        out.children.push(childOut);
        stack.push({ node: child, out: childOut });
      }
    }
    return top;
  }
}
