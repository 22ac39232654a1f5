export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogEntry {
  readonly id: string;
  readonly workflowId: string;
  /** The node (workflow, step or task) that was current when the entry was written. */
  readonly nodeId: string;
  readonly timestamp: number;
  readonly level: LogLevel;
  readonly message: string;
  readonly data?: unknown;
  readonly parentLogId?: string;
}
