export type ZodModule = typeof import('zod');

let loaded: ZodModule | undefined;
let loading: Promise<ZodModule> | undefined;

/**
 * zod, loaded on first use: importing groundswell must not pay for it (a workflow without agents
 * never needs it). The user's own zod is the one resolved, in the ESM and the CommonJS build alike
 * (esbuild turns this into require() in the latter). The same pattern as the SDK runtimes.
 */
export function loadZod(): Promise<ZodModule> {
  loading ??= import('./zod-runtime.js').then(
    (runtime) => (loaded = runtime.zod),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** zod if it has loaded already; lets synchronous paths use it once an async one has loaded it. */
export function loadedZod(): ZodModule | undefined {
  return loaded;
}

/**
 * zod on a synchronous path that runs only after `loadZod()` has resolved (an agent call loads it
 * first). Throws when that order is broken: a bug in groundswell, not in the caller's code.
 */
export function loadedZodOrFail(): ZodModule {
  if (loaded === undefined) throw new Error('groundswell: zod is used before it was loaded (loadZod() first); please report this.');
  return loaded;
}

/** For an entry that imports zod statically anyway (groundswell/cache): its synchronous paths may use it at once. */
export function provideZod(zod: ZodModule): void {
  loaded ??= zod;
  loading ??= Promise.resolve(loaded);
}
