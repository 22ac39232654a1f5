import { afterAll, describe, expect, it } from 'vitest';
import { connectMcp, McpConnectionError, type McpConnection } from 'groundswell/mcp';
import { GroundswellError } from '../../src/errors/groundswell-error.js';
import { echoServerConfig, isAlive } from './fixtures/echo-server-config.js';

async function pidOf(connection: McpConnection): Promise<number> {
  const result = await connection.callTool('pid', {});
  return Number(result.content);
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

// Everything runs concurrently: starting a child under tsx dominates the time of this file, and
// the generous timeout is for that start-up on a loaded machine, not for any expected wait.
describe.concurrent('stdio MCP server', { timeout: 20_000 }, () => {
  // One connection shared by the tests that leave it usable, opened on first use.
  let shared: Promise<McpConnection> | undefined;
  const open = (): Promise<McpConnection> => (shared ??= connectMcp(echoServerConfig()));
  afterAll(async () => {
    await (await shared)?.close();
  });

  it('lists the tools with qualified names and the server JSON schemas', async () => {
    const connection = await open();
    expect(connection.server).toBe('echo');
    expect(connection.tools.map((t) => t.qualifiedName).sort()).toEqual(
      ['crash', 'echo', 'env', 'fail', 'mixed', 'pid', 'sleep'].map((n) => `mcp__echo__${n}`),
    );
    const echo = connection.tools.find((t) => t.name === 'echo');
    expect(echo).toMatchObject({ server: 'echo', description: 'Returns its input text.' });
    expect(echo?.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    expect(Object.isFrozen(connection.tools)).toBe(true);
  });

  it('calls a tool by its own name or its qualified name', async () => {
    const connection = await open();
    const plain = await connection.callTool('echo', { text: 'hello' });
    expect(plain).toMatchObject({ content: 'hello', isError: false });
    expect(plain.raw).toMatchObject({ content: [{ type: 'text', text: 'hello' }] });
    expect(await connection.callTool('mcp__echo__echo', { text: 'again' })).toMatchObject({ content: 'again', isError: false });
  });

  it('keeps a tool error result an error', async () => {
    const connection = await open();
    expect(await connection.callTool('fail', {})).toMatchObject({ content: 'fail tool failed on purpose', isError: true });
  });

  it('answers an unknown tool with an error naming the known ones', async () => {
    const connection = await open();
    const result = await connection.callTool('nope', {});
    expect(result.isError).toBe(true);
    expect(result.content).toBe('MCP server "echo" has no tool "nope". Known tools: echo, env, fail, crash, pid, sleep, mixed.');
  });

  it('reports invalid arguments and non-object input as errors', async () => {
    const connection = await open();
    const invalid = await connection.callTool('echo', { text: 42 });
    expect(invalid.isError).toBe(true);
    expect(invalid.content).toMatch(/text/);
    expect(await connection.callTool('echo', 'just a string')).toMatchObject({
      isError: true,
      content: 'MCP tool "echo" on server "echo" needs an object as input.',
    });
  });

  it('flattens mixed content', async () => {
    const connection = await open();
    expect((await connection.callTool('mixed', undefined)).content).toBe('before\n[image: image/png, 8 bytes]\nafter');
  });

  it('rejects with the abort reason when a call is aborted, and stays usable', async () => {
    const connection = await open();
    const controller = new AbortController();
    const reason = new Error('stop now');
    const pending = connection.callTool('sleep', { ms: 5000 }, controller.signal);
    setTimeout(() => controller.abort(reason), 50);
    expect(await rejectionOf(pending)).toBe(reason);
    expect(await connection.callTool('echo', { text: 'still here' })).toMatchObject({ content: 'still here', isError: false });
  });

  it('turns a crash mid-call into an error result and closes the connection cleanly', async () => {
    const connection = await connectMcp(echoServerConfig());
    const pid = await pidOf(connection);
    const started = Date.now();
    const result = await connection.callTool('crash', {});
    // Far below the SDK's 60 s request timeout: the crash itself ended the call.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^MCP server "echo" failed: the server process exited/);
    expect(result.content).toContain('echo-server: crashing on request');
    expect(isAlive(pid)).toBe(false);

    const after = await connection.callTool('echo', { text: 'x' });
    expect(after).toMatchObject({ isError: true });
    expect(after.content).toMatch(/^MCP server "echo" failed: /);
    await expect(connection.close()).resolves.toBeUndefined();
    await expect(connection.close()).resolves.toBeUndefined();
  });

  // Closing waits up to 2 s for a busy child to exit before the SDK signals it.
  it('close() is idempotent, kills a busy child and resolves the call in flight as an error', async () => {
    const connection = await connectMcp(echoServerConfig());
    const pid = await pidOf(connection);
    expect(isAlive(pid)).toBe(true);
    // A pending 10 s timer keeps the child alive after its stdin closes, so this takes the kill path.
    const pending = connection.callTool('sleep', { ms: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await Promise.all([connection.close(), connection.close()]);
    await connection.close();
    expect(isAlive(pid)).toBe(false);

    const inFlight = await pending;
    expect(inFlight.isError).toBe(true);
    expect(inFlight.content).toBe('MCP server "echo" failed: the connection was closed during the call');
    expect(await connection.callTool('echo', { text: 'x' })).toMatchObject({
      isError: true,
      content: 'MCP server "echo" failed: the connection is closed.',
    });
  });

  it('closes the connection when the connect signal aborts later', async () => {
    const controller = new AbortController();
    const connection = await connectMcp(echoServerConfig(), { signal: controller.signal });
    const pid = await pidOf(connection);
    controller.abort(new Error('run cancelled'));
    await connection.close();
    expect(isAlive(pid)).toBe(false);
  });

  it('throws McpConnectionError naming the server for a command that does not exist', async () => {
    const error = await rejectionOf(connectMcp({ name: 'ghost', transport: 'stdio', command: '/nonexistent/mcp-server-xyz' }));
    expect(error).toBeInstanceOf(McpConnectionError);
    expect(error).toBeInstanceOf(GroundswellError);
    const e = error as McpConnectionError;
    expect(e.name).toBe('McpConnectionError');
    expect(e.server).toBe('ghost');
    expect(e.message).toMatch(/^MCP server "ghost" could not be started \(\/nonexistent\/mcp-server-xyz\): .*ENOENT/);
    expect(e.cause).toMatchObject({ code: 'ENOENT' });
  });

  it('throws McpConnectionError with the stderr tail for a server that exits at start', async () => {
    const error = await rejectionOf(
      connectMcp({
        name: 'quitter',
        transport: 'stdio',
        command: process.execPath,
        args: ['-e', 'console.error("boom at start"); process.exit(3)'],
      }),
    );
    expect(error).toBeInstanceOf(McpConnectionError);
    expect((error as McpConnectionError).message).toMatch(/^MCP server "quitter" could not be started/);
    expect((error as McpConnectionError).message).toContain('boom at start');
    expect((error as McpConnectionError).cause).toBeDefined();
  });

  it('rethrows the reason of a signal aborted before connecting', async () => {
    const reason = new Error('already cancelled');
    expect(await rejectionOf(connectMcp(echoServerConfig(), { signal: AbortSignal.abort(reason) }))).toBe(reason);
  });
});
