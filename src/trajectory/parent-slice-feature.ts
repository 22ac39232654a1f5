import type { TurnFeature, TurnFeatureContext } from '../agent/turn-feature.js';
import { currentScope } from '../core/scope.js';
import { parentCheckpointAt } from './parent-checkpoint.js';
import { renderChildSlice } from './render-checkpoint.js';

/**
 * A child agent called from inside another agent's run (a tool of it) gets a scoped slice of that
 * run's latest checkpoint as a system section, whatever its own trajectory options. A call that
 * starts fresh (the judge, reflection, the plan drafter) is not part of that run.
 */
export function parentSliceFeature(context: TurnFeatureContext<unknown>): TurnFeature | undefined {
  if (context.fresh) return undefined;
  const parent = parentCheckpointAt(currentScope()?.node);
  if (parent === undefined) return undefined;
  return { name: 'parent-slice', systemSection: renderChildSlice(parent, context.prompt.user) };
}
