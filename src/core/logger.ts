import type { LogEntry, LogLevel } from '../types/logging.js';

/** What a logger needs from its workflow; resolved per entry, so re-parenting never loses logs. */
export interface LogSink {
  writeLog(level: LogLevel, message: string, data: unknown, parentLogId: string | undefined): LogEntry;
}

export type LoggerMeta = { parentLogId?: string } & Record<string, unknown>;

/**
 * Writes entries onto the node that is current in its workflow (the running step, else the
 * workflow) and delivers them to the observers of the workflow's root at the moment of writing.
 */
export class WorkflowLogger {
  constructor(
    private readonly sink: LogSink,
    private readonly meta: LoggerMeta = {},
  ) {}

  debug(message: string, data?: unknown): LogEntry {
    return this.write('debug', message, data);
  }

  info(message: string, data?: unknown): LogEntry {
    return this.write('info', message, data);
  }

  warn(message: string, data?: unknown): LogEntry {
    return this.write('warn', message, data);
  }

  error(message: string, data?: unknown): LogEntry {
    return this.write('error', message, data);
  }

  /** A logger whose entries carry `meta` in their data, and `parentLogId` when given. */
  child(meta: LoggerMeta): WorkflowLogger {
    return new WorkflowLogger(this.sink, { ...this.meta, ...meta });
  }

  private write(level: LogLevel, message: string, data: unknown): LogEntry {
    const { parentLogId, ...extra } = this.meta;
    const hasExtra = Object.keys(extra).length > 0;
    const merged =
      hasExtra && data !== undefined
        ? { ...extra, ...(typeof data === 'object' && data !== null ? data : { value: data }) }
        : hasExtra
          ? extra
          : data;
    return this.sink.writeLog(level, message, merged, parentLogId);
  }
}
