import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { connectMcp, McpConnectionError, type McpServerConfig } from 'groundswell/mcp';
import { createInProcessServer } from './fixtures/in-process-server.js';

function inProcess(): { config: McpServerConfig; server: ReturnType<typeof createInProcessServer>['server']; probe: ReturnType<typeof createInProcessServer>['probe'] } {
  const { server, probe } = createInProcessServer();
  return { config: { name: 'mem', transport: 'in-process', server }, server, probe };
}

describe('in-process MCP server', () => {
  it('lists tools and calls them', async () => {
    const { config } = inProcess();
    const connection = await connectMcp(config, { clientName: 'test-client' });
    try {
      expect(connection.tools.map((t) => t.qualifiedName)).toEqual([
        'mcp__mem__echo',
        'mcp__mem__env',
        'mcp__mem__fail',
        'mcp__mem__throws',
        'mcp__mem__hold',
      ]);
      expect(await connection.callTool('mcp__mem__echo', { text: 'hi' })).toMatchObject({ content: 'hi', isError: false });
      expect(await connection.callTool('fail', {})).toMatchObject({ content: 'fail tool failed on purpose', isError: true });
      const thrown = await connection.callTool('throws', {});
      expect(thrown.isError).toBe(true);
      expect(thrown.content).toContain('handler blew up');
      const unknown = await connection.callTool('missing', {});
      expect(unknown).toMatchObject({ isError: true });
      expect(unknown.content).toBe('MCP server "mem" has no tool "missing". Known tools: echo, env, fail, throws, hold.');
      expect((await connection.callTool('mcp__mem__missing', {})).content).toBe(
        'MCP server "mem" has no tool "mcp__mem__missing". Known tools: mcp__mem__echo, mcp__mem__env, mcp__mem__fail, mcp__mem__throws, mcp__mem__hold.',
      );
    } finally {
      await connection.close();
    }
  });

  it('is released by close() so sequential connections reuse the same server', async () => {
    const { config, server } = inProcess();
    for (const text of ['first', 'second', 'third']) {
      const connection = await connectMcp(config);
      expect(server.isConnected()).toBe(true);
      expect(await connection.callTool('echo', { text })).toMatchObject({ content: text, isError: false });
      await connection.close();
      await connection.close();
      expect(server.isConnected()).toBe(false);
      expect(await connection.callTool('echo', { text })).toMatchObject({
        isError: true,
        content: 'MCP server "mem" failed: the connection is closed.',
      });
    }
  });

  it('serves overlapping connections at the same time through one shared link', async () => {
    const { config, server, probe } = inProcess();
    const [a, b] = await Promise.all([connectMcp(config), connectMcp(config)]);
    const results = await Promise.all([a.callTool('hold', { ms: 100 }), b.callTool('hold', { ms: 100 })]);
    expect(results.map((r) => r.content)).toEqual(['held 100', 'held 100']);
    // Both calls ran at once: connections are not queued behind each other.
    expect(probe.maxActive).toBe(2);

    await a.close();
    expect(server.isConnected()).toBe(true);
    expect(await b.callTool('echo', { text: 'b alive' })).toMatchObject({ content: 'b alive', isError: false });
    expect(await a.callTool('echo', { text: 'a' })).toMatchObject({ isError: true });

    await b.close();
    expect(server.isConnected()).toBe(false);
    const c = await connectMcp(config);
    expect(await c.callTool('echo', { text: 'c' })).toMatchObject({ content: 'c', isError: false });
    await c.close();
  });

  it('links afresh when a connection opens while the last one is closing', async () => {
    const { config, server } = inProcess();
    const first = await connectMcp(config);
    const closing = first.close();
    const second = await connectMcp(config);
    await closing;
    expect(server.isConnected()).toBe(true);
    expect(await second.callTool('echo', { text: 'fresh' })).toMatchObject({ content: 'fresh', isError: false });
    await second.close();
    expect(server.isConnected()).toBe(false);
  });

  it('reports connections whose server was closed behind their back, and relinks for new ones', async () => {
    const { config, server } = inProcess();
    const connection = await connectMcp(config);
    await server.close();
    const result = await connection.callTool('echo', { text: 'x' });
    expect(result).toMatchObject({ isError: true, content: 'MCP server "mem" failed: the in-process server closed its connection.' });
    await connection.close();

    const again = await connectMcp(config);
    expect(await again.callTool('echo', { text: 'y' })).toMatchObject({ content: 'y', isError: false });
    await again.close();
  });

  it('throws McpConnectionError when the server is attached to a transport of its own', async () => {
    const { config, server } = inProcess();
    const [, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    try {
      const error = await connectMcp(config).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(McpConnectionError);
      expect((error as McpConnectionError).server).toBe('mem');
      expect((error as McpConnectionError).message).toMatch(/^In-process MCP server "mem" could not be linked: Already connected/);
      expect((error as McpConnectionError).cause).toBeInstanceOf(Error);
      // The foreign transport is left alone.
      expect(server.isConnected()).toBe(true);
    } finally {
      await server.close();
    }
  });
});
