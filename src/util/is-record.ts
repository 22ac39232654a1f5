/** A non-null, non-array object whose fields can be read by key: the first check on untrusted data. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
