import type { WorkflowEvent } from './events.js';
import type { LogEntry } from './logging.js';
import type { NodeKind, WorkflowStatus } from './status.js';
import type { StateSnapshot } from './state.js';
import type { TokenUsage } from './usage.js';

export type { StateSnapshot } from './state.js';

/** The cycle-free, JSON-safe form of a node and its subtree. */
export interface SerializedNode {
  id: string;
  kind: NodeKind;
  name: string;
  workflowId: string;
  parentId: string | null;
  status: WorkflowStatus;
  startTime?: number;
  endTime?: number;
  duration?: number;
  stateSnapshot: StateSnapshot | null;
  usage?: TokenUsage;
  logs: LogEntry[];
  events: WorkflowEvent[];
  /** Entries dropped by retention limits, so a reader knows the lists are partial. */
  dropped: { events: number; logs: number; children: number; usage?: TokenUsage };
  children: SerializedNode[];
}

export interface RunExport {
  format: 'groundswell.run';
  version: 1;
  exportedAt: number;
  root: SerializedNode;
}
