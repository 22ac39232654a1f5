import { onFirstUse } from '../util/on-first-use.js';

export type AnthropicRuntime = typeof import('./anthropic-runtime.js');

// The Anthropic SDK (and the few helpers groundswell takes from it), loaded on first use: a
// workflow without agents never pays for it.
const runtime = onFirstUse<AnthropicRuntime>(() => import('./anthropic-runtime.js'));

export function loadAnthropicRuntime(): Promise<AnthropicRuntime> {
  return runtime.load();
}

/** The runtime if it has loaded already; lets hot paths skip an `await` once it has. */
export function loadedAnthropicRuntime(): AnthropicRuntime | undefined {
  return runtime.loaded();
}
