import { readProperty } from '../util/describe.js';

/** `@Step "fetch"`, or just `@Step` when the name is missing or not a usable string. */
export function memberLabel(kind: string, name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '') return kind;
  return `${kind} ${JSON.stringify(name.length > 60 ? `${name.slice(0, 57)}...` : name)}`;
}

/** `Agent "writer"` from a config's `name`, or `Agent` when it has none (the error will say so). */
export function labelOf(kind: string, config: unknown): string {
  return memberLabel(kind, typeof config === 'object' && config !== null ? readProperty(config, 'name') : undefined);
}
