import { TreeNode } from '../../core/tree-node.js';
import type { SerializedNode } from '../../types/serialized.js';
import type { WorkflowEvent } from '../../types/events.js';
import { nextEventId } from '../../util/ids.js';
import { NODE_USAGE } from '../../util/node-usage.js';

/**
 * Puts what a step held when it settled (its agent calls, tool calls, child workflows, with their
 * events, logs and usage) back under the step as a replay serves it, so a resumed run's tree reads
 * like the uninterrupted run's and its usage rolls up the same. Every grafted node is marked
 * replayed and keeps its original times. Nodes and events get ids of this process (every event
 * points at a node of this tree); events are numbered in the order they happened (timestamp, then
 * stored id), so a call's end still follows its tool calls and events relayed to the earlier
 * process out of time order (from DBOS workers) replay in time order.
 */
export function graftStored(step: TreeNode, stored: unknown): void {
  if (!Array.isArray(stored) || stored.length === 0) return;
  const events: Array<{ readonly event: WorkflowEvent; readonly node: TreeNode; readonly at: number }> = [];
  const stack: Array<[SerializedNode, TreeNode]> = (stored as SerializedNode[]).map((child): [SerializedNode, TreeNode] => [child, step]).reverse();
  while (stack.length > 0) {
    const [source, parent] = stack.pop() as [SerializedNode, TreeNode];
    if (typeof source !== 'object' || source === null || typeof source.kind !== 'string') continue;
    const node = new TreeNode(source.kind, String(source.name), step.owner);
    parent.addChild(node);
    node.markReplayed();
    if (typeof source.startTime === 'number') node.start(source.startTime);
    node.finish(source.status, source.endTime ?? source.startTime ?? 0);
    for (const event of Array.isArray(source.events) ? source.events : []) events.push({ event, node, at: events.length });
    for (const log of Array.isArray(source.logs) ? source.logs : []) node.recordLog({ ...log, nodeId: node.id });
    if (source.usage !== undefined) node.setAttr(NODE_USAGE, source.usage);
    const children = Array.isArray(source.children) ? source.children : [];
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push([children[i] as SerializedNode, node]);
  }
  // An event without a numeric time or id (never written so) goes last, in the order the walk met it.
  events.sort((a, b) => orderOf(a.event?.timestamp) - orderOf(b.event?.timestamp) || orderOf(a.event?.id) - orderOf(b.event?.id) || a.at - b.at);
  for (const { event, node } of events) {
    node.recordEvent({ ...event, id: nextEventId(), nodeId: node.id, workflowId: step.workflowId } as WorkflowEvent);
  }
}

function orderOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : Number.MAX_VALUE;
}

/** What a settled step keeps of its subtree: its children as JSON (empty: nothing to keep). */
export function storedSubtree(step: TreeNode): SerializedNode[] | undefined {
  const children = step.children;
  return children.length === 0 ? undefined : children.map((child) => child.toJSON());
}
