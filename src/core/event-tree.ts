import type { WorkflowNode } from '../types/node.js';
import type { SerializedNode } from '../types/serialized.js';
import { ancestorsOf, findNode } from '../util/tree-walk.js';

/** A live, read-only handle on the whole tree a workflow currently belongs to. */
export class EventTree {
  constructor(private readonly rootOf: () => WorkflowNode) {}

  /** The node of the current root workflow (it changes if the workflow is re-parented). */
  get root(): WorkflowNode {
    return this.rootOf();
  }

  getNode(id: string): WorkflowNode | undefined {
    return findNode(this.rootOf(), id);
  }

  getChildren(id: string): readonly WorkflowNode[] {
    return this.getNode(id)?.children ?? [];
  }

  /** Nearest first; empty for the root or an unknown id. */
  getAncestors(id: string): WorkflowNode[] {
    const node = this.getNode(id);
    return node ? ancestorsOf(node) : [];
  }

  toJSON(): SerializedNode {
    return this.rootOf().toJSON();
  }
}
