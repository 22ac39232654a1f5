/**
 * A step key as a person writes it: `/Pipeline#0/Child#2:score#0` reads `Pipeline › Child#2 ›
 * score`. A first occurrence (`#0`) is left out; a later one keeps its number.
 */
export function readableStepKey(key: string): string {
  const colon = key.lastIndexOf(':');
  const workflows = (colon < 0 ? key : key.slice(0, colon)).split('/').filter((part) => part !== '');
  const parts = colon < 0 ? workflows : [...workflows, key.slice(colon + 1)];
  return parts.map((part) => part.replace(/#0$/, '')).join(' › ');
}
