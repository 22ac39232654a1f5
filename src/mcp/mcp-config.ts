import { assertConfig } from '../checks/assert-config.js';
import { labelOf } from '../checks/label.js';
import { MCP_SERVER_NAME, mcpServerConfigSchema } from './mcp-server-config.schema.js';

// Nothing here imports the MCP SDK: these types reach the root entry through AgentSettings, and
// the SDK's declaration files fail CommonJS projects under `node16`.

/** An MCP server run as a child process, spoken to over its stdin/stdout. */
export interface StdioMcpServerConfig {
  readonly name: string;
  readonly transport: 'stdio';
  readonly command: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  /** Added to the SDK's safe default environment of the child; never written to `process.env`. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * What groundswell needs of the MCP SDK's `McpServer` (`server/mcp.js`), declared by shape so these
 * types need no SDK; any `McpServer` fits. `connect` takes the SDK's transport.
 */
export interface McpServerLike {
  connect(transport: never): Promise<void>;
  close(): Promise<void>;
  readonly server: object;
}

/** An `McpServer` living in this process, linked to the client by an in-memory transport. */
export interface InProcessMcpServerConfig {
  readonly name: string;
  readonly transport: 'in-process';
  readonly server: McpServerLike;
}

export type McpServerConfig = StdioMcpServerConfig | InProcessMcpServerConfig;

export { MCP_SERVER_NAME };

/** Throws a UsageError naming the field; returns the same config so it can be used inline. */
export function validateMcpConfig<C extends McpServerConfig>(config: C): C {
  // Configs often come from plain JS or JSON files, so nothing about the shape is trusted.
  assertConfig(mcpServerConfigSchema, config, () => labelOf('MCP server', config));
  return config;
}
