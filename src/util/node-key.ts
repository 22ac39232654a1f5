/**
 * A feature's slot on a tree node (decision 0030): the feature makes the key and keeps its data
 * on the nodes it cares about, the way a tracing library hangs a span on a context key. Core
 * knows keys only through these options, never the features behind them.
 */
export interface NodeKey<T> {
  /** For messages and debugging only; two keys with the same name are still different keys. */
  readonly name: string;
  /**
   * Folds a pruned child's value into what its parent keeps for pruned children, so rollups stay
   * whole after retention drops the child (`dropped[exportAs]` in the node's view and export).
   * Without it the value goes with the pruned node.
   */
  readonly merge: Merge<T> | undefined;
  /** The field the value is exported under in `toJSON()` (and read back by run parsing); not exported when unset. */
  readonly exportAs: string | undefined;
  /** Makes the exported form of a live value (a snapshot of an object that keeps changing); the value itself when unset. */
  readonly exportValue: ExportValue<T> | undefined;
}

// Method syntax, so a key of any value type fits where a key of unknown is expected (a node keeps
// keys of many types in one map).
type Merge<T> = { merge(kept: T, pruned: T): T }['merge'];
type ExportValue<T> = { exportValue(value: T): unknown }['exportValue'];

export interface NodeKeyOptions<T> {
  merge?: (kept: T, pruned: T) => T;
  exportAs?: string;
  exportValue?: (value: T) => unknown;
}

/** A new key: values set under it are visible only to holders of this object. */
export function createNodeKey<T>(name: string, options: NodeKeyOptions<T> = {}): NodeKey<T> {
  return Object.freeze({ name, merge: options.merge, exportAs: options.exportAs, exportValue: options.exportValue });
}
