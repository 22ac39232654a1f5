/** A module loaded on first use: once, unless that load failed (then the next use tries again). */
export interface OnFirstUse<T> {
  load(): Promise<T>;
  /** The module if it has loaded already: lets hot and synchronous paths skip an `await`. */
  loaded(): T | undefined;
  /** Takes `value` as the module when none has loaded yet (a synchronous load); the module in the end. */
  provide(value: () => T): T;
}

/**
 * `importIt` run on first use. The caller passes its own `() => import('./x.js')`, so the bundler
 * still sees each dynamic import where it is and splits the module out of the entry.
 */
export function onFirstUse<M, T = M>(importIt: () => Promise<M>, pick: (module: M) => T = (module) => module as unknown as T): OnFirstUse<T> {
  let loaded: T | undefined;
  let loading: Promise<T> | undefined;
  return {
    load() {
      loading ??= importIt().then(
        (module) => (loaded = pick(module)),
        (error: unknown) => {
          loading = undefined;
          throw error;
        },
      );
      return loading;
    },
    loaded: () => loaded,
    provide(value) {
      loaded ??= value();
      loading ??= Promise.resolve(loaded);
      return loaded;
    },
  };
}
