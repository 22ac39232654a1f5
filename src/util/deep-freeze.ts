/**
 * Freezes JSON data in place, every nested object and array too, and returns it: stored data (a
 * prompt's data, a cached response) can then be handed to readers without a copy.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Whether `value` and everything nested in it is frozen: what was read from it stays true. */
export function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (!Object.isFrozen(value)) return false;
  for (const child of Object.values(value)) if (!isDeepFrozen(child)) return false;
  return true;
}
