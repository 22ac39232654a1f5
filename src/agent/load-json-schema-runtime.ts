import { onFirstUse } from '../util/on-first-use.js';

export type JsonSchemaRuntime = typeof import('./json-schema-runtime.js');

// The JSON-schema transform, loaded on first use without the rest of the SDK: a call on a
// provider model never loads the Anthropic client.
const runtime = onFirstUse<JsonSchemaRuntime>(() => import('./json-schema-runtime.js'));

export function loadJsonSchemaRuntime(): Promise<JsonSchemaRuntime> {
  return runtime.load();
}

/** The transform if it has loaded already; lets hot paths skip an `await` once it has. */
export function loadedJsonSchemaRuntime(): JsonSchemaRuntime | undefined {
  return runtime.loaded();
}
