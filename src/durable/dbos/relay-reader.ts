import { runInScope } from '../../core/scope.js';
import { TreeNode } from '../../core/tree-node.js';
import type { Workflow } from '../../core/workflow.js';
import type { DbosLike } from './dbos-like.js';
import type { RelayIds } from './relay-ids.js';
import { RELAY_STREAM, type RelayBatch, type RelayItem } from './relay-writer.js';

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

  constructor(
    private readonly mirror: Workflow,
    private readonly ids: RelayIds,
  ) {
    this.outside = new TreeNode('workflow', mirror.name, mirror);
  }

  async follow(dbos: DbosLike, childId: string): Promise<void> {
    for await (const batch of dbos.readStream<RelayBatch>(childId, RELAY_STREAM, { pollingIntervalMs: FALLBACK_POLL_MS })) this.deliver(batch);
  }

  deliver(batch: RelayBatch): void {
    const { mirror, outside, ids } = this;
    ids.root(batch.root);
    for (const item of batch.items) {
      if ('event' in item) mirror.dispatch(outside, ids.event(item.event));
      else runInScope({ workflow: mirror, node: outside }, () => mirror.writeLog(item.log.level, item.log.message, item.log.data, undefined));
    }
  }
}
