import type { SerializedNode } from '../../types/serialized.js';
import type { RelayBatch } from './relay-writer.js';

/** What a groundswell run on DBOS returns to DBOS: its value, and its trail for whoever follows it. */
export interface RunOutcome {
  readonly value: unknown;
  /**
   * The run's `RunTrail` as JSON text: DBOS serializes a string without walking it (the tree was
   * most of a worker's serialization time).
   */
  readonly trail: string;
}

/** The run's tree when it settled, and the events and logs its stream did not carry. */
export interface RunTrail {
  readonly tree: SerializedNode;
  readonly rest: RelayBatch;
}
