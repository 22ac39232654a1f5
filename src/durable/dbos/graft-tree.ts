import { amountsOfSubtree, bookBelow } from '../../budgets/earlier-spending.js';
import { ledgersAbove } from '../../budgets/node-budgets.js';
import { TreeNode } from '../../core/tree-node.js';
import type { Workflow } from '../../core/workflow.js';
import { NODE_USAGE } from '../../util/node-usage.js';
import type { SerializedNode } from '../../types/serialized.js';
import type { RelayIds } from './relay-ids.js';

/**
 * Rebuilds the tree a child workflow left on its worker under the launcher's mirror of it, so
 * the launcher's tree (debugger, export, viewer) holds the children's steps and agent calls.
 * The child's own node is the mirror; its logs join the mirror's, its descendants become nodes.
 * Nodes and events take the ids `ids` gave them when they were relayed, so they match what observers saw.
 * What the child spent there is booked on every budget enclosing the mirror (its process could
 * not reserve on them). A child's tree is grafted once, when its run settles.
 */
export function graftTree(remote: SerializedNode, mirror: Workflow, ids: RelayIds): void {
  ids.root(remote.id);
  for (const log of remote.logs) mirror.treeNode.recordLog(ids.log(log));
  const stack: Array<[SerializedNode, TreeNode]> = remote.children.map((child) => [child, mirror.treeNode]);
  stack.reverse();
  while (stack.length > 0) {
    const [source, parent] = stack.pop() as [SerializedNode, TreeNode];
    const node = new TreeNode(source.kind, source.name, mirror, ids.node(source.id));
    parent.addChild(node);
    if (source.startTime !== undefined) node.start(source.startTime);
    node.finish(source.status, source.endTime ?? source.startTime ?? 0);
    for (const event of source.events) node.recordEvent(ids.event(event));
    for (const log of source.logs) node.recordLog(ids.log(log));
    if (source.usage !== undefined) node.setAttr(NODE_USAGE, source.usage);
    for (let i = source.children.length - 1; i >= 0; i -= 1) stack.push([source.children[i] as SerializedNode, node]);
  }
  // Without a budget above, nothing is counted (and the tree is not walked again).
  if (ledgersAbove(mirror.treeNode).length > 0) bookBelow(mirror.treeNode, amountsOfSubtree([remote]));
}
