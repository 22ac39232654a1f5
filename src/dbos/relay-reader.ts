import { runInScope } from '../core/scope.js';
import { TreeNode } from '../core/tree-node.js';
import type { Workflow } from '../core/workflow.js';
import type { DbosLike } from './dbos-like.js';
import { RELAY_STREAM, type RelayItem } from './relay-writer.js';

/**
 * The launcher's side of the relay: reads a child's DBOS stream until the child ends and hands
 * every event and log to the launcher root's observers through the child's mirror workflow.
 * They are recorded on a node outside the tree (the child's own tree is grafted when it ends),
 * so observers see them live and the tree holds each once.
 */
export async function relayChild(dbos: DbosLike, childId: string, mirror: Workflow): Promise<void> {
  const outside = new TreeNode('workflow', mirror.name, mirror);
  for await (const items of dbos.readStream<RelayItem[]>(childId, RELAY_STREAM)) {
    for (const item of items) {
      if ('event' in item) mirror.dispatch(outside, item.event);
      else runInScope({ workflow: mirror, node: outside }, () => mirror.writeLog(item.log.level, item.log.message, item.log.data, undefined));
    }
  }
}
