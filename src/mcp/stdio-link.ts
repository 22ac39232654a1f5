import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { errorMessage } from '../util/describe.js';
import type { StdioMcpServerConfig } from './mcp-config.js';
import { McpConnectionError } from './mcp-connection-error.js';
import type { McpClientInfo, McpLink } from './mcp-link.js';
import { StdioProcessTransport } from './stdio-process-transport.js';

const OWN_GROUPS = process.platform !== 'win32';

/** Enough stderr to show why a server died, bounded so a chatty server cannot grow memory. */
const STDERR_TAIL_CHARS = 2000;

/**
 * Spawns the server and runs the MCP handshake. The child's environment is built here as a fresh
 * object (safe defaults < config env < per-call env), which is the only way per-call secrets
 * reach it: `process.env` is read by the SDK's defaults but never written.
 */
export async function openStdioLink(
  config: StdioMcpServerConfig,
  callEnv: Readonly<Record<string, string>> | undefined,
  clientInfo: McpClientInfo,
  signal: AbortSignal | undefined,
): Promise<McpLink> {
  const params = {
    command: config.command,
    args: [...(config.args ?? [])],
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
    env: { ...getDefaultEnvironment(), ...config.env, ...callEnv },
  };
  // POSIX: the server leads a process group of its own, killed whole (decision 0051). Windows has
  // no groups to kill, and the SDK's transport resolves `.cmd` shims there (npx), so it keeps it.
  const transport = OWN_GROUPS
    ? new StdioProcessTransport(params, true)
    : // Piped rather than inherited so a server's logs do not interleave with the host's output and
      // its last words can be quoted when it fails.
      new StdioClientTransport({ ...params, stderr: 'pipe' });
  let stderrTail = '';
  // Always drained: an unread pipe fills up and blocks a server that logs a lot.
  transport.stderr?.on('data', (chunk: Buffer | string) => {
    stderrTail = (stderrTail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
  });
  const diagnostics = (): string => {
    const tail = stderrTail.trim();
    return tail === '' ? '' : `\nServer stderr (tail):\n${tail}`;
  };

  const client = new Client({ name: clientInfo.name, version: clientInfo.version }, { capabilities: {} });
  let released = false;
  let failure: string | undefined;
  client.onclose = () => {
    if (!released) failure ??= 'the server process exited or closed its connection';
  };
  // Transport errors (EPIPE to a dead child, bad JSON on stdout) are followed by a close or a
  // request failure that carries the story; without a handler they would only be lost anyway.
  client.onerror = () => {};

  let releasing: Promise<void> | undefined;
  const release = (): Promise<void> => {
    released = true;
    releasing ??= client.close().catch(() => {});
    return releasing;
  };

  try {
    await client.connect(transport, signal ? { signal } : undefined);
  } catch (error) {
    // A cancelled start has nothing to save and may never read its stdin: killed now, not after
    // the grace periods of a close (whose timers would not keep an exiting host alive).
    if (signal?.aborted && transport instanceof StdioProcessTransport) transport.kill();
    await release();
    if (signal?.aborted) throw signal.reason;
    throw new McpConnectionError(
      config.name,
      `MCP server "${config.name}" could not be started (${config.command}): ${errorMessage(error)}${diagnostics()}`,
      { cause: error },
    );
  }

  return { client, failure: () => failure, diagnostics, release };
}
