export interface MemoryRunStoreOptions {
  /** Time source for timestamps and leases (default `Date`); a test clock makes lease expiry instant. */
  clock?: { now(): number };
}
