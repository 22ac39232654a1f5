import { GroundswellError } from '../errors/groundswell-error.js';

/** An MCP server could not be started, initialised or listed; `cause` holds the underlying failure. */
export class McpConnectionError extends GroundswellError {
  /** The `name` of the server config, so a caller with several servers knows which one failed. */
  readonly server: string;

  constructor(server: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.server = server;
  }
}
