import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { errorMessage } from '../util/describe.js';
import type { McpServerLike } from './mcp-config.js';
import { McpConnectionError } from './mcp-connection-error.js';
import type { McpClientInfo, McpLink } from './mcp-link.js';

/**
 * One live client per McpServer instance, shared by every connection that overlaps it.
 *
 * An McpServer accepts a single transport at a time, so two agents using the same server object
 * concurrently cannot each link their own client. Queueing them would serialise whole agent runs
 * (and deadlock a caller that opens two connections before closing either); MCP clients multiplex
 * requests by id, so sharing one is safe. The last lease to be released closes the link, which
 * frees the server for the next connection or for any other use.
 */
interface LinkState {
  refs: number;
  /** Set when the last lease is released; newcomers wait for it, then link afresh. */
  closing: Promise<void> | undefined;
  /** The link died under its leases (someone closed the server); newcomers link afresh. */
  failure: string | undefined;
  /** Our end on the server side, to tell our attachment from one made elsewhere. */
  serverTransport: InMemoryTransport | undefined;
}

interface SharedLink extends LinkState {
  readonly ready: Promise<Client>;
}

const links = new WeakMap<McpServer, SharedLink>();

export async function acquireInProcessLink(handle: McpServerLike, name: string, clientInfo: McpClientInfo): Promise<McpLink> {
  // The config is typed by shape to keep the SDK out of the public types; validation checked it.
  const server = handle as McpServer;
  for (;;) {
    const existing = links.get(server);
    if (existing?.closing) {
      await existing.closing;
      continue;
    }
    const shared = existing && existing.failure === undefined ? existing : openShared(server, name, clientInfo);
    shared.refs += 1;
    let client: Client;
    try {
      client = await shared.ready;
    } catch (error) {
      shared.refs -= 1;
      throw error;
    }
    return lease(server, shared, client);
  }
}

function openShared(server: McpServer, name: string, clientInfo: McpClientInfo): SharedLink {
  const state: LinkState = { refs: 0, closing: undefined, failure: undefined, serverTransport: undefined };
  const ready = link(server, name, clientInfo, state).catch((error: unknown) => {
    if (links.get(server) === state) links.delete(server);
    throw error;
  });
  // Every acquirer awaiting `ready` receives the rejection; this only stops an unhandled-rejection
  // report when the last of them has already given up.
  ready.catch(() => {});
  const shared: SharedLink = Object.assign(state, { ready });
  links.set(server, shared);
  return shared;
}

async function link(server: McpServer, name: string, clientInfo: McpClientInfo, state: LinkState): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  try {
    await server.connect(serverTransport);
  } catch (error) {
    throw new McpConnectionError(
      name,
      `In-process MCP server "${name}" could not be linked: ${errorMessage(error)} (is it connected to a transport outside groundswell?)`,
      { cause: error },
    );
  }
  const client = new Client({ name: clientInfo.name, version: clientInfo.version }, { capabilities: {} });
  client.onclose = () => {
    if (state.closing === undefined) state.failure ??= 'the in-process server closed its connection';
  };
  client.onerror = () => {};
  try {
    await client.connect(clientTransport);
  } catch (error) {
    await closeQuietly(client, server, serverTransport);
    throw new McpConnectionError(name, `In-process MCP server "${name}" failed to initialise: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  state.serverTransport = serverTransport;
  return client;
}

function lease(server: McpServer, shared: SharedLink, client: Client): McpLink {
  let released: Promise<void> | undefined;
  return {
    client,
    failure: () => shared.failure,
    diagnostics: () => '',
    release: () => {
      released ??= releaseShared(server, shared, client);
      return released;
    },
  };
}

async function releaseShared(server: McpServer, shared: SharedLink, client: Client): Promise<void> {
  shared.refs -= 1;
  if (shared.refs > 0) return;
  shared.closing = (async () => {
    await closeQuietly(client, server, shared.serverTransport);
    if (links.get(server) === shared) links.delete(server);
  })();
  await shared.closing;
}

/**
 * Closing the client normally detaches the server as well; the server is closed directly only
 * while it is still attached to *our* transport, so a connection made elsewhere meanwhile is
 * never cut.
 */
async function closeQuietly(client: Client, server: McpServer, serverTransport: InMemoryTransport | undefined): Promise<void> {
  await client.close().catch(() => {});
  if (serverTransport !== undefined && server.server.transport === serverTransport) {
    await server.close().catch(() => {});
  }
}
