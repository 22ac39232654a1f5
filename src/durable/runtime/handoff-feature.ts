import { getCurrentWorkflow } from '../../core/ambient.js';
import type { TurnFeatureFactory } from '../../agent/turn-feature.js';
import { renderCheckpoint } from '../../trajectory/render-checkpoint.js';
import type { TrajectoryCheckpoint } from '../../types/trajectory.js';
import { durableRunOf } from './run-durably.js';

const HEADING = '[RESTORED CHECKPOINT]';

/**
 * The handoff of a resumed run: an agent call that was interrupted after it saved a trajectory
 * checkpoint gets that checkpoint once, in its re-run's first request, as orientation. Keyed by
 * the call's own path (its journal key), so in a fan-out of calls to one agent each child gets
 * its own checkpoint or none. Its facts are marked stale: a restored checkpoint is not fresh
 * evidence, so a read must be done again.
 */
export const handoffFeature: TurnFeatureFactory<unknown> = () => {
  const workflow = getCurrentWorkflow();
  const run = workflow === undefined ? undefined : durableRunOf(workflow);
  if (run === undefined || !run.hasRestoredCheckpoints) return undefined;
  let sent = false;
  return {
    name: 'handoff',
    // Handed over by the first request actually sent: a replayed call sends none.
    beforeRequest(request) {
      if (sent) return;
      const node = request.call.tree.node;
      const checkpoint = run.restoredCheckpoint(node);
      if (checkpoint === undefined || !run.handOver(node, checkpoint)) return;
      sent = true;
      request.systemBlocks.push(handoffText(checkpoint));
    },
    firstRequestText: (call) => {
      const checkpoint = run.restoredCheckpoint(call.tree.node);
      return Promise.resolve(checkpoint === undefined ? '' : handoffText(checkpoint));
    },
  };
};

function handoffText(checkpoint: TrajectoryCheckpoint): string {
  const stale: TrajectoryCheckpoint = {
    ...checkpoint,
    groundedFacts: checkpoint.groundedFacts.map((fact) => ({ ...fact, freshness: 'stale' })),
  };
  return (
    `${HEADING} This run was resumed after an interruption. The checkpoint below was saved before it: ` +
    'use it to orient yourself, not as fresh evidence; read again what you rely on.\n' +
    renderCheckpoint(stale)
  );
}
