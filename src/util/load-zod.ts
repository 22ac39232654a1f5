import { createRequire } from 'node:module';
import { onFirstUse } from './on-first-use.js';

export type ZodModule = typeof import('zod');

// zod itself, not a module of ours that imports it: a first agent call waits for this import, and
// a chunk of our own to read, compile and link first made it ~2 ms slower in a fresh process. The
// CommonJS build turns it into require('zod') (tsup.config.ts), so each build gets the user's copy.
const zod = onFirstUse<ZodModule>(() => import('zod'));

/**
 * zod, loaded on first use: importing groundswell must not pay for it (a workflow without agents
 * never needs it). The user's own zod is the one resolved, in the ESM and the CommonJS build alike.
 */
export function loadZod(): Promise<ZodModule> {
  return zod.load();
}

/** zod if it has loaded already; lets synchronous paths use it once an async one has loaded it. */
export function loadedZod(): ZodModule | undefined {
  return zod.loaded();
}

/**
 * zod on a synchronous path, which normally runs only after `loadZod()` has resolved (an agent
 * call loads it first).
 */
export function loadedZodOrFail(): ZodModule {
  // A public schema used before any agent call (`DEFAULT_SPAWN_ANSWER.parse(...)`): load zod
  // synchronously rather than fail. Rare, and in an ESM program it may be zod's CommonJS copy.
  return zod.provide(requireZod);
}

function requireZod(): ZodModule {
  // `__filename` in the CommonJS build (where import.meta is empty), the module URL in the ESM one.
  const base = typeof __filename === 'string' ? __filename : import.meta.url;
  return createRequire(base)('zod') as ZodModule;
}

/** For an entry that imports zod statically anyway (groundswell/cache): its synchronous paths may use it at once. */
export function provideZod(module: ZodModule): void {
  zod.provide(() => module);
}
