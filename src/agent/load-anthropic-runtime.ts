export type AnthropicRuntime = typeof import('./anthropic-runtime.js');

let loaded: AnthropicRuntime | undefined;
let loading: Promise<AnthropicRuntime> | undefined;

/**
 * The Anthropic SDK (and the few helpers groundswell takes from it), loaded on first use: a
 * workflow without agents never pays for it. The same pattern as the MCP runtime.
 */
export function loadAnthropicRuntime(): Promise<AnthropicRuntime> {
  loading ??= import('./anthropic-runtime.js').then(
    (runtime) => (loaded = runtime),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The runtime if it has loaded already; lets hot paths skip an `await` once it has. */
export function loadedAnthropicRuntime(): AnthropicRuntime | undefined {
  return loaded;
}
