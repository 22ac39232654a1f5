// `groundswell/mcp`: the MCP client API. A separate entry so the root's types never reference
// @modelcontextprotocol/sdk (whose declarations fail CommonJS projects under `node16`) and
// importing `groundswell` never loads the SDK. Agents take `mcps` without importing this entry.
// The SDK is an optional peer: this entry loads it on import, so it needs it installed (its types
// do not: they are declared by shape).
export { MCP_SERVER_NAME, validateMcpConfig } from './mcp-config.js';
export type { InProcessMcpServerConfig, McpServerConfig, McpServerLike, StdioMcpServerConfig } from './mcp-config.js';
export { mcpIdentity } from './mcp-identity.js';
export type { McpIdentity, McpToolIdentity } from './mcp-identity.js';
export { connectMcp, MCP_ENV_META_KEY } from './mcp-connection.js';
export type { ConnectMcpOptions, McpConnection, McpToolDescriptor } from './mcp-connection.js';
export { McpConnectionError } from './mcp-connection-error.js';
export type { McpToolResult } from './mcp-tool-result.js';
