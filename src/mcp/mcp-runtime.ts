// What an agent needs of MCP at run time. Loaded only through loadMcpRuntime(), so the SDK is
// never loaded by `import 'groundswell'` and only when a call has MCP servers.
export { connectMcp } from './mcp-connection.js';
export { mcpIdentity } from './mcp-identity.js';
