/**
 * Freezes JSON data in place, every nested object and array too, and returns it: a stored
 * response can then be handed to readers without a copy, as none of them can change it.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
