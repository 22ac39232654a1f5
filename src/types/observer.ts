import type { WorkflowEvent } from './events.js';
import type { LogEntry } from './logging.js';
import type { WorkflowNode } from './node.js';

/**
 * Every method is optional. Methods are called synchronously, in event order (an async method is
 * not awaited); one that throws, or returns a promise that rejects, is isolated and reported as an
 * `observerError` event.
 */
export interface WorkflowObserver {
  onLog?(entry: LogEntry): void;
  /** `node` is the node the event happened on (with its parent chain), absent when a caller has none. */
  onEvent?(event: WorkflowEvent, node?: WorkflowNode): void;
  onStateUpdated?(node: WorkflowNode): void;
  onTreeChanged?(root: WorkflowNode): void;
}

export type Unsubscribe = () => void;
