export type JsonSchemaRuntime = typeof import('./json-schema-runtime.js');

let loaded: JsonSchemaRuntime | undefined;
let loading: Promise<JsonSchemaRuntime> | undefined;

/**
 * The JSON-schema transform, loaded on first use, without the rest of the SDK: a call on a
 * provider model never loads the Anthropic client. The same pattern as the SDK runtime.
 */
export function loadJsonSchemaRuntime(): Promise<JsonSchemaRuntime> {
  loading ??= import('./json-schema-runtime.js').then(
    (runtime) => (loaded = runtime),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The transform if it has loaded already; lets hot paths skip an `await` once it has. */
export function loadedJsonSchemaRuntime(): JsonSchemaRuntime | undefined {
  return loaded;
}
