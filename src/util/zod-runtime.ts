/**
 * zod, as `load-zod.ts` imports it dynamically: a module of its own, so the CommonJS build loads it
 * with require() like the SDK runtimes (tsup rewrites only imports of our own chunks). (Tagged
 * public because the unused-export check cannot follow names read off a dynamic import.)
 */
import * as zodNamespace from 'zod';

/** @public */
export const zod = zodNamespace;
