import { ownList, readList } from '../util/class-metadata.js';

/** One `@ObservedState` field, as core reads it for snapshots (the decorator registers it). */
export interface ObservedField {
  readonly key: PropertyKey;
  readonly hidden: boolean;
  readonly redact: boolean;
  read(instance: object): unknown;
  /** Puts a value back (a durable replay restores what a step left). */
  write(instance: object, value: unknown): void;
}

const FIELDS = Symbol('groundswell.observedFields');

/** A subclass redeclaring a field replaces the inherited entry: its options win. */
export function registerObservedField(bag: Record<PropertyKey, unknown>, field: ObservedField): void {
  const list = ownList<ObservedField>(bag, FIELDS);
  const index = list.findIndex((existing) => existing.key === field.key);
  if (index >= 0) list[index] = field;
  else list.push(field);
}

export function observedFieldsOf(instance: object): readonly ObservedField[] {
  return readList<ObservedField>(instance, FIELDS);
}
