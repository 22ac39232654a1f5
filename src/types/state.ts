/** A JSON-safe copy of a workflow's observed fields (the `@ObservedState` members). */
export type StateSnapshot = Readonly<Record<string, unknown>>;
