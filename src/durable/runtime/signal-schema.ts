/** A wait's schema as JSON Schema (kept with the waiting run); undefined when zod cannot describe it. */
export async function waitSchemaJson(schema: unknown): Promise<unknown> {
  try {
    const { z } = await import('zod');
    return z.toJSONSchema(schema as Parameters<typeof z.toJSONSchema>[0], { unrepresentable: 'any' });
  } catch {
    return undefined;
  }
}

/**
 * Checks `value` against a stored JSON Schema; returns the problems, or undefined when it fits.
 * The JSON form loses refinements, transforms and dates, so passing here is no promise: the
 * resumed wait checks again with the real schema and rejects what that refuses.
 */
export async function signalProblems(schemaJson: unknown, value: unknown): Promise<string | undefined> {
  const { z } = await import('zod');
  let schema;
  try {
    schema = z.fromJSONSchema(schemaJson as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return undefined;
  }
  const result = schema.safeParse(value);
  if (result.success) return undefined;
  return result.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'value'}: ${issue.message}`)
    .join('; ');
}
