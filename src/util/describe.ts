/** A short description of a value for error messages ("null", "number", "an object (Foo)"). */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object') {
    const named = value as { name?: unknown; id?: unknown; constructor?: { name?: string } };
    const ctor = named.constructor?.name ?? 'Object';
    return typeof named.id === 'string' ? `${ctor} "${String(named.name)}" (${named.id})` : `an object (${ctor})`;
  }
  return typeof value;
}

/** The message of anything thrown. */
export function errorMessage(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}
