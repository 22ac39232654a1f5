import type { PlanWatchOptions } from './config/plan-watch-options.js';
import type { TrajectoryOptions } from './config/trajectory-config.js';
import type { TurnFeature, TurnFeatureContext, TurnFeatureFactory } from './turn-feature.js';

/** The agent options the built-in features read (each is declared on `AgentConfig`). */
export interface TurnFeatureOptions {
  readonly trajectory?: TrajectoryOptions;
  readonly plan?: PlanWatchOptions;
}

// Filled by the composition root (src/install.ts) and by tests through the handle; the agent
// layer imports no feature.
const factories: TurnFeatureFactory<TurnFeatureOptions>[] = [];

/**
 * Adds a per-turn feature for every later agent call. Features run in registration order around
 * each request (a feature's system blocks come after those of the ones before it). Registering a
 * factory twice keeps one entry. Returns the handle that removes it again.
 */
export function registerTurnFeature(factory: TurnFeatureFactory<TurnFeatureOptions>): () => void {
  if (!factories.includes(factory)) factories.push(factory);
  return () => {
    const at = factories.indexOf(factory);
    if (at >= 0) factories.splice(at, 1);
  };
}

/**
 * The features of one call: what each factory makes for it, in registration order. Most calls use
 * none: they share one empty, frozen list.
 */
export function turnFeaturesFor(context: TurnFeatureContext<TurnFeatureOptions>): readonly TurnFeature[] {
  let features: TurnFeature[] | undefined;
  for (const factory of factories) {
    const feature = factory(context);
    if (feature !== undefined) (features ??= []).push(feature);
  }
  return features ?? NO_FEATURES;
}

const NO_FEATURES: readonly TurnFeature[] = Object.freeze([]);
