import { getCurrentWorkflow } from '../core/ambient.js';
import type { TurnFeatureFactory } from '../agent/turn-feature.js';
import { renderCheckpoint } from '../trajectory/render-checkpoint.js';
import type { TrajectoryCheckpoint } from '../types/trajectory.js';
import { durableRunOf } from './run-durably.js';

const HEADING = '[RESTORED CHECKPOINT]';

/**
 * The handoff of a resumed run: the first live call of an agent that had trajectory checkpoints
 * before the interruption gets the latest one once, as orientation. Its facts are marked stale:
 * a restored checkpoint is not fresh evidence (trajectory seed), so a read must be done again.
 */
export const handoffFeature: TurnFeatureFactory<unknown> = (context) => {
  const workflow = getCurrentWorkflow();
  const run = workflow === undefined ? undefined : durableRunOf(workflow);
  const checkpoint = run?.restoredCheckpoint(context.agentName);
  if (run === undefined || checkpoint === undefined) return undefined;
  const text = handoffText(checkpoint);
  let sent = false;
  return {
    name: 'handoff',
    // Handed over by the first request actually sent: a replayed call sends none.
    beforeRequest(request) {
      if (sent || !run.handOver(context.agentName, checkpoint)) return;
      sent = true;
      request.systemBlocks.push(text);
    },
    firstRequestText: () => Promise.resolve(text),
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
