export type McpRuntime = typeof import('./mcp-runtime.js');

/**
 * The MCP client code and the SDK behind it, loaded on first use: most agents have no MCP
 * servers, and the SDK (with its own dependencies) is the largest part of an import otherwise.
 */
export function loadMcpRuntime(): Promise<McpRuntime> {
  return import('./mcp-runtime.js');
}
