import type { WorkflowRuntime } from './workflow-runtime.js';
import { observedFieldsOf } from './observed-fields.js';

/**
 * The current values of `redact: true` fields of `workflow` and its parents: the primitive
 * leaves, so a redacted object (`{ user, password }`) hides each of its strings.
 */
export function redactedValues(workflow: WorkflowRuntime | undefined): string[] {
  // One array for the whole chain (read on every agent call), not one per workflow spread into it.
  const values: string[] = [];
  for (let w = workflow; w !== undefined && w !== null; w = w.parent ?? undefined) collectOwn(w, values);
  return values;
}

/** The redacted values of `workflow` alone (not its parents). */
export function ownRedactedValues(workflow: WorkflowRuntime): string[] {
  const values: string[] = [];
  collectOwn(workflow, values);
  return values;
}

function collectOwn(workflow: WorkflowRuntime, into: string[]): void {
  for (const field of observedFieldsOf(workflow)) {
    if (field.redact) collectLeaves(readField(field.read, workflow), into, 0);
  }
}

function readField(read: (instance: object) => unknown, instance: object): unknown {
  try {
    return read(instance);
  } catch {
    return undefined; // a throwing getter hides nothing we could read
  }
}

function collectLeaves(value: unknown, into: string[], depth: number): void {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') {
    into.push(String(value));
    return;
  }
  if (typeof value !== 'object' || value === null || depth > 4) return;
  let children: unknown[];
  try {
    children = Object.values(value);
  } catch {
    return;
  }
  for (const child of children) collectLeaves(child, into, depth + 1);
}
