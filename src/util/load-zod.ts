export type ZodModule = typeof import('zod');

let loaded: ZodModule | undefined;
let loading: Promise<ZodModule> | undefined;

/**
 * zod, loaded on first use: importing groundswell must not pay for it (a workflow without agents
 * never needs it). The user's own zod is the one resolved, in the ESM and the CommonJS build alike
 * (esbuild turns this into require() in the latter). The same pattern as the SDK runtimes.
 */
export function loadZod(): Promise<ZodModule> {
  loading ??= import('zod').then(
    (zod) => (loaded = zod),
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
