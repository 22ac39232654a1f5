import type { ModelProviders } from '../types/model-providers.js';
import type { Workflow } from './workflow.js';

/**
 * The model providers of the nearest workflow around a call that registers some: a root's
 * `providers` serve every agent in its tree, and a child's own replace them for its subtree.
 */
export function providersAround(workflow: Workflow | undefined): ModelProviders | undefined {
  for (let w = workflow; w !== undefined && w !== null; w = w.parent ?? undefined) {
    if (w.config.providers !== undefined) return w.config.providers;
  }
  return undefined;
}
