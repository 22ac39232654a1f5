import { loadedZod, loadedZodOrFail, type ZodModule } from './load-zod.js';

/**
 * A zod schema of groundswell's own (a built-in tool's input, an internal answer shape) that is
 * built on first use instead of at import, so importing groundswell does not load zod. It stands
 * for the real schema through a proxy. Before zod has loaded, only a shape check can look at it
 * (`defineTool`, an agent's config: `safeParse` and `_zod` are there); anything else is used
 * inside an agent call, which loads zod first.
 */
export function lazySchema<T extends object>(build: (z: ZodModule['z']) => T): T {
  let real: T | undefined;
  const schema = (): T => (real ??= build(loadedZodOrFail().z));
  const early = (): boolean => real === undefined && loadedZod() === undefined;
  return new Proxy({} as T, {
    get(_, key) {
      if (key === 'safeParse' && early()) return (value: unknown) => (schema() as { safeParse(v: unknown): unknown }).safeParse(value);
      return Reflect.get(schema(), key);
    },
    has(_, key) {
      if (key === '_zod' && early()) return true;
      return Reflect.has(schema(), key);
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
    ownKeys: () => Reflect.ownKeys(schema()),
    getOwnPropertyDescriptor(_, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      // The proxy's own target is an empty, extensible object: it may report only configurable keys.
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
  });
}
