import type { WorkflowNode } from '../types/node.js';
import type { TrajectoryCheckpoint } from '../types/trajectory.js';

/**
 * The latest checkpoint of the nearest enclosing agent call (a child agent started from inside a
 * tool of another agent's run), or undefined when there is none.
 */
export function parentCheckpointAt(node: WorkflowNode | undefined): TrajectoryCheckpoint | undefined {
  for (let n = node; n !== undefined && n !== null; n = n.parent ?? undefined) {
    if (n.kind !== 'agentPrompt') continue;
    const events = n.events;
    for (let i = events.length - 1; i >= 0; i -= 1) {
      const event = events[i];
      if (event?.type === 'trajectoryCheckpoint') return event.checkpoint;
    }
    return undefined;
  }
  return undefined;
}
