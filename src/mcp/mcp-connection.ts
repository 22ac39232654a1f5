import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { errorMessage } from '../util/describe.js';
import { acquireInProcessLink } from './in-process-link.js';
import { validateMcpConfig, type McpServerConfig } from './mcp-config.js';
import { validateConnectMcpOptions } from './connect-mcp-options.schema.js';
import { McpConnectionError } from './mcp-connection-error.js';
import type { McpLink } from './mcp-link.js';
import { qualifyMcpToolNames } from './mcp-tool-name.js';
import { mcpErrorResult, toMcpToolResult, type McpToolResult } from './mcp-tool-result.js';
import { openStdioLink } from './stdio-link.js';

/** One tool offered by an MCP server, named for the model. */
export interface McpToolDescriptor {
  readonly server: string;
  /** The name the server knows the tool by. */
  readonly name: string;
  /** `mcp__<server>__<tool>` restricted to [a-zA-Z0-9_-] and 64 chars: the name the model sees. */
  readonly qualifiedName: string;
  readonly description?: string;
  /** The JSON schema the server published for the tool's arguments. */
  readonly inputSchema: Record<string, unknown>;
}

/** A live, initialised session with one MCP server. */
export interface McpConnection {
  /** The config's `name`. */
  readonly server: string;
  /** The server's tools as listed when the connection was made. */
  readonly tools: readonly McpToolDescriptor[];
  /**
   * Calls a tool by its server name or its qualified name. Never rejects for tool or server
   * trouble: unknown tools, error results, crashed servers and closed connections all resolve to
   * `isError: true`, because the model should see them as a failed tool. It rejects only with the
   * abort reason when `signal` (or the connection's signal) aborts.
   */
  callTool(name: string, input: unknown, signal?: AbortSignal): Promise<McpToolResult>;
  /** Ends the session and kills a stdio child. Idempotent; never rejects. */
  close(): Promise<void>;
}

export interface ConnectMcpOptions {
  /**
   * Extra environment for this connection only. Stdio: merged over the config's `env` into the
   * child's environment. In-process: sent with every tool call as `_meta["groundswell/env"]`
   * (see MCP_ENV_META_KEY), since such a server shares this process and `process.env` is never
   * mutated.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Aborts connecting; once connected, aborting closes the connection. */
  readonly signal?: AbortSignal;
  /**
   * The client name announced to the server (default "groundswell"). Overlapping connections to
   * one in-process server share a client, which keeps the name of the first.
   */
  readonly clientName?: string;
}

/** The request `_meta` key under which in-process tools receive the per-call env. */
export const MCP_ENV_META_KEY = 'groundswell/env';

// Announced in `initialize`; servers only use it for logs, so it need not track package.json.
const CLIENT_VERSION = '0.1.0';

/**
 * Connects to one MCP server and lists its tools. Throws McpConnectionError (naming the server,
 * with `cause`) when the server cannot be started, initialised or listed; throws UsageError for an
 * invalid config; rethrows `signal.reason` when aborted.
 */
export async function connectMcp(config: McpServerConfig, options: ConnectMcpOptions = {}): Promise<McpConnection> {
  validateMcpConfig(config);
  validateConnectMcpOptions(options);
  const { signal } = options;
  signal?.throwIfAborted();
  const clientInfo = { name: options.clientName ?? 'groundswell', version: CLIENT_VERSION };
  const link =
    config.transport === 'stdio'
      ? await openStdioLink(config, options.env, clientInfo, signal)
      : await acquireInProcessLink(config.server, config.name, clientInfo);

  let tools: McpToolDescriptor[];
  try {
    signal?.throwIfAborted();
    tools = await listTools(config.name, link.client, signal);
    // Checked again so an abort during the listing cannot slip past the connection's abort listener.
    signal?.throwIfAborted();
  } catch (error) {
    await link.release();
    if (signal?.aborted) throw signal.reason;
    throw new McpConnectionError(
      config.name,
      `MCP server "${config.name}" did not list its tools: ${errorMessage(error)}${link.diagnostics()}`,
      { cause: error },
    );
  }
  const meta = config.transport === 'in-process' && options.env ? { [MCP_ENV_META_KEY]: { ...options.env } } : undefined;
  return new LinkedMcpConnection(config.name, link, tools, meta, signal);
}

async function listTools(server: string, client: Client, signal: AbortSignal | undefined): Promise<McpToolDescriptor[]> {
  const listed: { name: string; description?: string | undefined; inputSchema: Record<string, unknown> }[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, signal ? { signal } : undefined);
    listed.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const qualified = qualifyMcpToolNames(server, listed.map((t) => t.name));
  return listed.map((t) =>
    Object.freeze({
      server,
      name: t.name,
      qualifiedName: qualified.get(t.name) ?? t.name,
      ...(t.description === undefined ? {} : { description: t.description }),
      inputSchema: t.inputSchema,
    }),
  );
}

class LinkedMcpConnection implements McpConnection {
  readonly tools: readonly McpToolDescriptor[];
  private readonly byName = new Map<string, McpToolDescriptor>();
  private closing: Promise<void> | undefined;
  private readonly onAbort = (): void => void this.close();

  constructor(
    readonly server: string,
    private readonly link: McpLink,
    tools: McpToolDescriptor[],
    private readonly meta: Record<string, unknown> | undefined,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.tools = Object.freeze(tools);
    for (const tool of tools) this.byName.set(tool.name, tool);
    // Qualified names are looked up second so a server tool that happens to be called
    // `mcp__x__y` is still reachable by its own name.
    for (const tool of tools) if (!this.byName.has(tool.qualifiedName)) this.byName.set(tool.qualifiedName, tool);
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  async callTool(name: string, input: unknown, signal?: AbortSignal): Promise<McpToolResult> {
    const tool = this.byName.get(name);
    if (tool === undefined) {
      // Answer in the naming scheme the caller used: a model that guessed a qualified name
      // should be offered qualified names it can actually call.
      const qualified = name.startsWith('mcp__');
      const known = this.tools.map((t) => (qualified ? t.qualifiedName : t.name)).join(', ') || '(none)';
      return mcpErrorResult(`MCP server "${this.server}" has no tool "${name}". Known tools: ${known}.`, undefined);
    }
    const down = this.closing ? 'the connection is closed' : this.link.failure();
    if (down !== undefined) return mcpErrorResult(`MCP server "${this.server}" failed: ${down}.`, undefined);
    if (input !== undefined && input !== null && (typeof input !== 'object' || Array.isArray(input))) {
      return mcpErrorResult(`MCP tool "${tool.name}" on server "${this.server}" needs an object as input.`, input);
    }
    this.throwIfAborted(signal);
    try {
      const result = await this.link.client.callTool(
        {
          name: tool.name,
          arguments: (input ?? {}) as Record<string, unknown>,
          ...(this.meta ? { _meta: this.meta } : {}),
        },
        undefined,
        signal ? { signal } : undefined,
      );
      return toMcpToolResult(result);
    } catch (error) {
      this.throwIfAborted(signal);
      const failure = this.link.failure();
      if (failure !== undefined) {
        // A dead server will not come back; releasing now reaps the child without waiting for close().
        void this.close();
        // Its last stderr lines usually say why it died (a healthy server's logs would be noise).
        return mcpErrorResult(`MCP server "${this.server}" failed: ${failure}${this.link.diagnostics()}`, error);
      }
      const detail = this.closing ? 'the connection was closed during the call' : errorMessage(error);
      return mcpErrorResult(`MCP server "${this.server}" failed: ${detail}`, error);
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.signal?.removeEventListener('abort', this.onAbort);
      await this.link.release();
    })();
    return this.closing;
  }

  /** Cancellation is the caller's decision, so it surfaces as their reason rather than a tool error. */
  private throwIfAborted(signal: AbortSignal | undefined): void {
    signal?.throwIfAborted();
    this.signal?.throwIfAborted();
  }
}
