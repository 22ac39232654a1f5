// Objects kept for their shape only, for the life of the process. On `globalThis`, not in a
// module array: the bundler drops pushes to an array nobody reads, and with them the objects.
const KEPT_KEY = Symbol.for('groundswell.kept-shapes');
type GlobalWithKept = typeof globalThis & { [KEPT_KEY]?: object[] };
const holder = globalThis as GlobalWithKept;

/**
 * Keeps `instance` alive so its class's shape (V8's hidden class) outlives every other instance.
 * A class's shape dies with its last instance; code optimized against it is then thrown away and
 * runs unoptimized until compiled again. Objects made per call (an agent call's `CallTree`) all
 * die between bursts of calls, so every full GC in a pause would deoptimize the call path
 * (decision 0093). An object literal's shape needs none of this: its literal keeps it.
 */
export function keepShape<T extends object>(instance: T): T {
  (holder[KEPT_KEY] ??= []).push(instance);
  return instance;
}
