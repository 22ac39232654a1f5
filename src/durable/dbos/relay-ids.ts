import type { WorkflowEvent } from '../../types/events.js';
import type { LogEntry } from '../../types/logging.js';
import { nextEventId, nextId } from '../../util/ids.js';

/**
 * Translates one child's ids from its worker into the launcher's: every worker numbers its events
 * from 1 and names its nodes itself, so a relayed event takes the launcher's next event id when it
 * first arrives (ids stay unique and in arrival order across processes), and a worker node id maps
 * to the id its grafted node will carry (the child's root to the mirror's), so events and the tree agree.
 */
export class RelayIds {
  private readonly nodes = new Map<string, string>();
  private readonly events = new Map<string, number>();

  constructor(private readonly mirrorId: string) {}

  /** The worker's node `root` is the child's own, shown by the mirror. */
  root(root: string): void {
    this.nodes.set(root, this.mirrorId);
  }

  node(workerId: string): string {
    let id = this.nodes.get(workerId);
    if (id === undefined) {
      // The kind letter of the worker's id keeps the launcher's id readable as the same kind.
      id = nextId(workerId.charAt(0));
      this.nodes.set(workerId, id);
    }
    return id;
  }

  /** The event as the launcher numbers it: the same id each time the same worker event comes back. */
  event(event: WorkflowEvent): WorkflowEvent {
    // Node ids carry their process's random prefix, so with the worker's sequence they name one event.
    const key = `${event.nodeId} ${event.id}`;
    let id = this.events.get(key);
    if (id === undefined) {
      id = nextEventId();
      this.events.set(key, id);
    }
    const mapped = { ...event, id, nodeId: this.node(event.nodeId), workflowId: this.node(event.workflowId) } as WorkflowEvent & { childId?: string; budgetNodeId?: string };
    if (typeof mapped.childId === 'string') mapped.childId = this.node(mapped.childId);
    // A budget event names the node its budget is on (the child's own: the mirror).
    if (typeof mapped.budgetNodeId === 'string') mapped.budgetNodeId = this.node(mapped.budgetNodeId);
    return mapped;
  }

  log(entry: LogEntry): LogEntry {
    return { ...entry, nodeId: this.node(entry.nodeId), workflowId: this.node(entry.workflowId) };
  }
}
