/**
 * The Anthropic SDK's strict JSON-schema transform, on its own: a structured answer's schema
 * needs it on every path, a provider model's included, and this module loads a dozen small files
 * where the whole SDK loads hundreds. Only `load-json-schema-runtime.ts` imports it, dynamically.
 * (Tagged public because the unused-export check cannot follow names read off a dynamic import.)
 */
import { transformJSONSchema as transform } from '@anthropic-ai/sdk/lib/transform-json-schema';

/** @public */
export const transformJSONSchema = transform;
