import { runInScope } from '../core/scope.js';
import { TreeNode } from '../core/tree-node.js';
import type { Workflow } from '../core/workflow.js';
import type { DbosLike } from './dbos-like.js';
import { RELAY_STREAM, type RelayItem } from './relay-writer.js';

// DBOS wakes a reader on each write (LISTEN/NOTIFY); polling is only its fallback, and with one
// reader per child a 1 s poll was most of the launcher's and the database's work.
const FALLBACK_POLL_MS = 10_000;

/**
 * The launcher's side of the relay for one child: reads the child's DBOS stream until the child
 * ends it and hands every event and log to the launcher root's observers through the child's
 * mirror workflow. They are recorded on a node outside the tree (the child's own tree is grafted
 * when it ends), so observers see them live and the tree holds each once.
 */
export class RelayReader {
  private readonly outside: TreeNode;

  constructor(private readonly mirror: Workflow) {
    this.outside = new TreeNode('workflow', mirror.name, mirror);
  }

  async follow(dbos: DbosLike, childId: string): Promise<void> {
    for await (const items of dbos.readStream<RelayItem[]>(childId, RELAY_STREAM, { pollingIntervalMs: FALLBACK_POLL_MS })) this.deliver(items);
  }

  deliver(items: readonly RelayItem[]): void {
    const { mirror, outside } = this;
    for (const item of items) {
      if ('event' in item) mirror.dispatch(outside, item.event);
      else runInScope({ workflow: mirror, node: outside }, () => mirror.writeLog(item.log.level, item.log.message, item.log.data, undefined));
    }
  }
}
