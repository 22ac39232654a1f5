import { usageRollup } from '../debugger/usage-rollup.js';
import type { WorkflowNode } from '../types/node.js';
import { walkTree } from '../util/tree-walk.js';
import { nodeRow, type NodeRow } from './node-row.js';

/** What changed in the tree since the previous refresh. */
export interface TreeChanges {
  readonly rootId: string | null;
  /** New or changed rows, parents before children. */
  readonly upserted: NodeRow[];
  /** Rows gone from the tree (pruned by retention, or a new root). */
  readonly removed: string[];
}

/** The whole tree as rows, parents before children and siblings in order. */
export interface TreeSnapshot {
  readonly rootId: string | null;
  readonly rows: NodeRow[];
}

interface Sent {
  readonly row: NodeRow;
  readonly signature: string;
}

/**
 * The server's picture of the viewed tree. A refresh walks the tree once (O(nodes)) and compares
 * each row with what was last sent: cheaper and far simpler than patching rows per event, and it
 * runs at most once per batch interval, only while a page is watching.
 */
export class ViewerModel {
  private root: WorkflowNode | null = null;
  private byId = new Map<string, WorkflowNode>();
  private sent = new Map<string, Sent>();
  private order: string[] = [];

  setRoot(root: WorkflowNode | null): void {
    this.root = root;
  }

  get rootNode(): WorkflowNode | null {
    return this.root;
  }

  refresh(): TreeChanges {
    const root = this.root;
    const rollup = root === null ? new Map<WorkflowNode, never>() : usageRollup(root);
    const byId = new Map<string, WorkflowNode>();
    const sent = new Map<string, Sent>();
    const order: string[] = [];
    const upserted: NodeRow[] = [];
    if (root !== null) {
      for (const node of walkTree<WorkflowNode>(root)) {
        const row = nodeRow(node, rollup.get(node));
        const signature = JSON.stringify(row);
        const before = this.sent.get(node.id);
        if (before?.signature === signature) sent.set(node.id, before);
        else {
          sent.set(node.id, { row, signature });
          upserted.push(row);
        }
        byId.set(node.id, node);
        order.push(node.id);
      }
    }
    const removed = [...this.sent.keys()].filter((id) => !sent.has(id));
    this.byId = byId;
    this.sent = sent;
    this.order = order;
    return { rootId: root?.id ?? null, upserted, removed };
  }

  /** The rows as of the last refresh (so a new page and the batches after it agree). */
  snapshot(): TreeSnapshot {
    return { rootId: this.root === null ? null : (this.order[0] ?? null), rows: this.order.map((id) => (this.sent.get(id) as Sent).row) };
  }

  /** A node as of the last refresh; a node added since is found by a refresh first. */
  node(id: string): WorkflowNode | undefined {
    return this.byId.get(id);
  }
}
