import { isMissingModule } from '../util/missing-module.js';
import { McpSdkMissingError } from './mcp-sdk-missing-error.js';

export type McpRuntime = typeof import('./mcp-runtime.js');

/**
 * The MCP client code and the SDK behind it, loaded on first use: most agents have no MCP
 * servers, and the SDK (with its own dependencies) is the largest part of an install otherwise,
 * so it is an optional peer. `servers` names the servers that need it, for the error when it is
 * not installed.
 */
export async function loadMcpRuntime(servers: readonly string[]): Promise<McpRuntime> {
  try {
    return await import('./mcp-runtime.js');
  } catch (error) {
    if (isMissingMcpSdk(error)) throw new McpSdkMissingError(servers, { cause: error });
    throw error;
  }
}

// Node's not-found message names the missing package first (ESM: "Cannot find package 'x' imported
// from …", CommonJS: "Cannot find module 'x/…'"); a dependency missing inside the SDK is a broken
// install, reported as it is.
const SDK_NOT_FOUND = /Cannot find (?:package|module) '@modelcontextprotocol\/sdk[/']/;

/** Whether a failed load of the MCP runtime means the SDK itself is not installed. */
export function isMissingMcpSdk(error: unknown): boolean {
  return isMissingModule(error) && error instanceof Error && SDK_NOT_FOUND.test(error.message);
}
