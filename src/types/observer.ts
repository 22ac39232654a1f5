import type { WorkflowEvent } from './events.js';
import type { LogEntry } from './logging.js';
import type { WorkflowNode } from './node.js';

/** Every method is optional; an observer that throws is isolated and reported once. */
export interface WorkflowObserver {
  onLog?(entry: LogEntry): void;
  onEvent?(event: WorkflowEvent): void;
  onStateUpdated?(node: WorkflowNode): void;
  onTreeChanged?(root: WorkflowNode): void;
}

export type Unsubscribe = () => void;
