import type { TurnFeature, TurnFeatureContext } from '../agent/turn-feature.js';
import { PlanWatcher } from './plan-watcher.js';
import type { PlanWatchOptions } from '../agent/config/plan-watch-options.js';

/**
 * An agent's `plan`: the plan file kept in view, as an extra system block of the requests it is
 * due on (the whole file at the start and after a compaction, the folded plan when stale).
 */
export function planReminderFeature(context: TurnFeatureContext<{ readonly plan?: PlanWatchOptions }>): TurnFeature | undefined {
  const options = context.config.plan;
  if (!options) return undefined;
  const watcher = new PlanWatcher(options);
  // Set by a compaction earlier in the same pipeline run, read (and cleared) by this request.
  let compacted = false;
  return {
    name: 'plan',
    async beforeRequest(request) {
      const text = await watcher.beforeRequest(request.turn, compacted);
      compacted = false;
      if (text !== '') request.systemBlocks.push(text);
    },
    onCompaction() {
      compacted = true;
    },
    firstRequestText: () => watcher.firstRequestText(),
  };
}
