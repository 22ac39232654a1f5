import type { WorkflowEvent } from '../types/events.js';
import type { LogEntry } from '../types/logging.js';
import type { WorkflowNode } from '../types/node.js';
import type { SerializedNode, StateSnapshot } from '../types/serialized.js';
import { isFinished, type NodeKind, type WorkflowStatus } from '../types/status.js';
import { nextId } from '../util/ids.js';
import { RingBuffer } from '../util/ring-buffer.js';
import type { RetentionOptions } from './retention.js';

const NONE: readonly never[] = Object.freeze([]);

/** What a node needs from the workflow that owns it. */
export interface NodeOwner {
  readonly id: string;
  readonly retention: RetentionOptions;
}

/**
 * The mutable node behind the read-only `WorkflowNode` view. Lists are allocated on first use
 * and bounded by the owning workflow's retention, so a step that logs nothing costs little.
 */
export class TreeNode implements WorkflowNode {
  readonly id: string;
  parent: TreeNode | null = null;
  status: WorkflowStatus = 'idle';
  stateSnapshot: StateSnapshot | null = null;
  startTime?: number;
  endTime?: number;
  private childList: TreeNode[] | null = null;
  private eventBuffer: RingBuffer<WorkflowEvent> | null = null;
  private logBuffer: RingBuffer<LogEntry> | null = null;
  private prunedChildren = 0;

  constructor(
    readonly kind: NodeKind,
    readonly name: string,
    readonly owner: NodeOwner,
  ) {
    this.id = nextId(kind === 'workflow' ? 'wf' : kind);
  }

  get workflowId(): string {
    return this.owner.id;
  }

  get children(): readonly TreeNode[] {
    return this.childList ?? NONE;
  }

  get events(): readonly WorkflowEvent[] {
    return this.eventBuffer?.toArray() ?? NONE;
  }

  get logs(): readonly LogEntry[] {
    return this.logBuffer?.toArray() ?? NONE;
  }

  get duration(): number | undefined {
    if (this.startTime === undefined || this.endTime === undefined) return undefined;
    return this.endTime - this.startTime;
  }

  get dropped(): { events: number; logs: number; children: number } {
    return {
      events: this.eventBuffer?.dropped ?? 0,
      logs: this.logBuffer?.dropped ?? 0,
      children: this.prunedChildren,
    };
  }

  recordEvent(event: WorkflowEvent): void {
    (this.eventBuffer ??= new RingBuffer(this.owner.retention.maxEventsPerNode)).push(event);
  }

  recordLog(entry: LogEntry): void {
    (this.logBuffer ??= new RingBuffer(this.owner.retention.maxLogsPerNode)).push(entry);
  }

  addChild(child: TreeNode): void {
    child.parent = this;
    const list = (this.childList ??= []);
    list.push(child);
    const max = this.owner.retention.maxChildrenPerNode;
    // Prune in batches (slack of a quarter) so the amortised cost per insertion stays O(1).
    if (list.length > max + Math.max(16, max >> 2)) this.pruneFinished(list, max);
  }

  removeChild(child: TreeNode): void {
    const list = this.childList;
    const index = list ? list.indexOf(child) : -1;
    if (list && index >= 0) list.splice(index, 1);
    if (child.parent === this) child.parent = null;
  }

  /** Marks the node finished unless it was already cancelled (a cancel is never overwritten). */
  finish(status: WorkflowStatus, endTime: number | undefined): void {
    if (this.status === 'cancelled') return;
    this.status = status;
    if (endTime !== undefined) this.endTime = endTime;
  }

  toJSON(): SerializedNode {
    const out: SerializedNode = {
      id: this.id,
      kind: this.kind,
      name: this.name,
      workflowId: this.workflowId,
      parentId: this.parent?.id ?? null,
      status: this.status,
      stateSnapshot: this.stateSnapshot,
      logs: [...this.logs],
      events: [...this.events],
      dropped: this.dropped,
      children: this.children.map((child) => child.toJSON()),
    };
    if (this.startTime !== undefined) out.startTime = this.startTime;
    if (this.endTime !== undefined) out.endTime = this.endTime;
    const duration = this.duration;
    if (duration !== undefined) out.duration = duration;
    return out;
  }

  private pruneFinished(list: TreeNode[], max: number): void {
    let excess = list.length - max;
    const kept: TreeNode[] = [];
    for (const node of list) {
      if (excess > 0 && node.kind !== 'workflow' && isFinished(node.status)) {
        excess -= 1;
        this.prunedChildren += 1;
        continue;
      }
      kept.push(node);
    }
    this.childList = kept;
  }
}
