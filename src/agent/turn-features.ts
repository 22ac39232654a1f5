import { planReminderFeature } from '../plans/plan-reminder-feature.js';
import type { PlanWatchOptions } from '../plans/plan-watcher.js';
import { checkpointFeature } from '../trajectory/checkpoint-feature.js';
import { compactionFeature } from '../trajectory/compaction-feature.js';
import type { TrajectoryOptions } from '../trajectory/trajectory-config.js';
import type { TurnFeature, TurnFeatureContext, TurnFeatureFactory } from './turn-feature.js';

/** The agent options the registered features read (each is declared on `AgentConfig`). */
export interface TurnFeatureOptions {
  readonly trajectory?: TrajectoryOptions;
  readonly plan?: PlanWatchOptions;
}

/**
 * The per-turn features, one line each, in the order they run around every request: compaction
 * first (later features see the conversation as sent), then the blocks appended after the cached
 * system sections, in this order. Not `readonly`: tests register their own feature here.
 */
export const TURN_FEATURES: TurnFeatureFactory<TurnFeatureOptions>[] = [
  compactionFeature,
  planReminderFeature,
  checkpointFeature,
];

/** The features of one call: what each factory makes for it, in registration order. */
export function turnFeaturesFor(context: TurnFeatureContext<TurnFeatureOptions>): TurnFeature[] {
  const features: TurnFeature[] = [];
  for (const factory of TURN_FEATURES) {
    const feature = factory(context);
    if (feature !== undefined) features.push(feature);
  }
  return features;
}
