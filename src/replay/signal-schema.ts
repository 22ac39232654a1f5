import type { RunStore } from '../durable/run-store.js';

/** Where a wait's schema is kept (as JSON Schema), so `signal()` can check a value without the code. */
export function signalSchemaName(name: string): string {
  return `signal-schema:${name}`;
}

/** Stores the JSON Schema of a zod schema; a schema zod cannot describe is simply not stored. */
export async function storeSignalSchema(store: RunStore, runId: string, dataName: string, schema: unknown): Promise<void> {
  let json: unknown;
  try {
    const { z } = await import('zod');
    json = z.toJSONSchema(schema as Parameters<typeof z.toJSONSchema>[0], { unrepresentable: 'any' });
  } catch {
    return;
  }
  await store.putData(runId, dataName, json);
}

/** Checks `value` against a stored JSON Schema; returns the problems, or undefined when it fits. */
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
