import { observedFieldsOf } from './observed-fields.js';
import type { StateSnapshot } from '../types/serialized.js';
import { errorMessage } from '../util/describe.js';
import { toJsonSafe } from '../util/json-safe.js';

export const REDACTED = '***';

const NO_STATE: StateSnapshot = Object.freeze({});

/**
 * A copy of the `@ObservedState` fields of an instance, as plain JSON data: hidden fields are left
 * out and redacted ones replaced, so the snapshot can go anywhere (events, errors, exports).
 */
export function captureState(instance: object): StateSnapshot {
  const fields = observedFieldsOf(instance);
  // Nothing observed: one shared frozen object, not a new one per snapshot (they are immutable).
  if (fields.length === 0) return NO_STATE;
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (field.hidden) continue;
    const key = typeof field.key === 'symbol' ? field.key.toString() : String(field.key);
    out[key] = field.redact ? REDACTED : readField(field, instance);
  }
  return Object.freeze(out);
}

/** A field's JSON-safe value; a getter that throws gives a marker, since snapshots run on failure paths too. */
function readField(field: { read(instance: object): unknown }, instance: object): unknown {
  try {
    return toJsonSafe(field.read(instance));
  } catch (error) {
    return `[Unserializable: ${errorMessage(error)}]`;
  }
}
