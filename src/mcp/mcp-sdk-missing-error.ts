import { UsageError } from '../errors/groundswell-error.js';

/** The MCP SDK versions groundswell is built and tested against; package.json's peer range says the same. */
export const MCP_SDK_RANGE = '^1.32.2';

/**
 * A call has MCP servers but the MCP SDK, an optional peer dependency, is not installed; `cause`
 * is the failed import. A root export, so it can be caught without importing `groundswell/mcp`,
 * which itself needs the SDK. (The package name stays out of this comment: the root declarations
 * mention no MCP SDK, which the packed-package test checks by text.)
 */
export class McpSdkMissingError extends UsageError {
  /** The `name` of each server the call would have connected; empty when no call is known. */
  readonly servers: readonly string[];

  constructor(servers: readonly string[], options: { cause: unknown }) {
    const named = servers.map((name) => `"${name}"`).join(', ');
    const what = servers.length === 0 ? 'MCP servers need' : servers.length === 1 ? `MCP server ${named} needs` : `MCP servers ${named} need`;
    super(
      `${what} the \`@modelcontextprotocol/sdk\` package (an optional peer dependency), which is not installed: run \`npm install @modelcontextprotocol/sdk@${MCP_SDK_RANGE}\`.`,
      options,
    );
    this.servers = servers;
  }
}
