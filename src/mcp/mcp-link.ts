import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/**
 * An initialised MCP client together with whatever keeps its server reachable (a child process,
 * a lease on an in-process server). Internal: connections are built on top of it.
 */
export interface McpLink {
  readonly client: Client;
  /** Why the link went down without being released (server exited, transport closed); undefined while alive. */
  failure(): string | undefined;
  /** Extra context for failure messages, such as the tail of a child's stderr; '' when there is none. */
  diagnostics(): string;
  /** Gives the link up: kills the child or returns the in-process lease. Idempotent; never throws. */
  release(): Promise<void>;
}

/** Name and version the client announces in `initialize`. */
export interface McpClientInfo {
  readonly name: string;
  readonly version: string;
}
