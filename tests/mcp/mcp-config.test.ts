import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectMcp, mcpIdentity, validateMcpConfig, type McpServerConfig } from 'groundswell/mcp';
import { GroundswellError, UsageError } from '../../src/errors/groundswell-error.js';
import { createInProcessServer } from './fixtures/in-process-server.js';

/** Configs as plain JS callers could write them, type checks bypassed on purpose. */
function loose(config: unknown): McpServerConfig {
  return config as McpServerConfig;
}

describe('validateMcpConfig', () => {
  const cases: [string, unknown, RegExp][] = [
    ['not an object', null, /config must be an MCP server config .*, got null/],
    ['empty name', { name: '', transport: 'stdio', command: 'x' }, /config\.name must be a server name matching/],
    ['missing name', { transport: 'stdio', command: 'x' }, /config\.name is required: a server name/],
    ['name with a space', { name: 'my server', transport: 'stdio', command: 'x' }, /config\.name must be .*, got "my server"/],
    ['name too long', { name: 'a'.repeat(41), transport: 'stdio', command: 'x' }, /config\.name must be a server name matching/],
    ['missing command', { name: 'srv', transport: 'stdio' }, /^MCP server "srv": config\.command is required: a non-empty string/],
    ['blank command', { name: 'srv', transport: 'stdio', command: '  ' }, /config\.command must be a non-empty string/],
    ['args not strings', { name: 'srv', transport: 'stdio', command: 'x', args: [1] }, /config\.args\[0\] must be a string, got 1/],
    ['env values not strings', { name: 'srv', transport: 'stdio', command: 'x', env: { A: 1 } }, /config\.env\.A must be a string/],
    ['unknown transport', { name: 'srv', transport: 'http', command: 'x' }, /^MCP server "srv": config\.transport must be one of: stdio, in-process, got "http"/],
    ['in-process without server', { name: 'srv', transport: 'in-process' }, /"srv": config\.server is required: an McpServer/],
    ['an unknown key', { name: 'srv', transport: 'stdio', command: 'x', cmdArgs: [] }, /config has an unknown key "cmdArgs"/],
  ];

  it.each(cases)('rejects %s with a UsageError', (_label, config, message) => {
    let thrown: unknown;
    try {
      validateMcpConfig(loose(config));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect(thrown).toBeInstanceOf(GroundswellError);
    expect((thrown as Error).message).toMatch(message);
  });

  it('accepts valid configs and returns them unchanged', () => {
    const stdio: McpServerConfig = { name: 'a-b_C9', transport: 'stdio', command: 'node', args: ['x'], env: { K: 'v' } };
    expect(validateMcpConfig(stdio)).toBe(stdio);
    const inProcess: McpServerConfig = { name: 'mem', transport: 'in-process', server: createInProcessServer().server };
    expect(validateMcpConfig(inProcess)).toBe(inProcess);
  });

  it('makes connectMcp throw the UsageError before doing anything', async () => {
    await expect(connectMcp(loose({ name: '', transport: 'stdio', command: 'x' }))).rejects.toBeInstanceOf(UsageError);
  });
});

describe('mcpIdentity', () => {
  it('identifies a stdio server by command, args, cwd and env keys, never env values', () => {
    const identity = mcpIdentity({
      name: 'fs',
      transport: 'stdio',
      command: 'npx',
      args: ['-y', 'server-fs'],
      cwd: '/srv',
      env: { TOKEN: 'secret-value-123', ALPHA: 'also-secret' },
    });
    expect(identity).toEqual({
      name: 'fs',
      transport: 'stdio',
      command: 'npx',
      args: ['-y', 'server-fs'],
      cwd: '/srv',
      envKeys: ['ALPHA', 'TOKEN'],
    });
    expect(JSON.stringify(identity)).not.toContain('secret');
  });

  it('is the same for env values that differ and JSON-safe when optional fields are absent', () => {
    const a = mcpIdentity({ name: 'x', transport: 'stdio', command: 'c', env: { K: '1' } });
    const b = mcpIdentity({ name: 'x', transport: 'stdio', command: 'c', env: { K: '2' } });
    expect(a).toEqual(b);
    const bare = mcpIdentity({ name: 'x', transport: 'stdio', command: 'c' });
    expect(JSON.parse(JSON.stringify(bare))).toEqual(bare);
    expect(bare).toMatchObject({ args: [], cwd: null, envKeys: [] });
  });

  it('identifies an in-process server by its tools, matching what tools/list reports', async () => {
    const { server } = createInProcessServer();
    const identity = mcpIdentity({ name: 'mem', transport: 'in-process', server });
    expect(identity.transport).toBe('in-process');
    if (identity.transport !== 'in-process') return;
    expect(identity.tools?.map((t) => t.name)).toEqual(['echo', 'env', 'fail', 'hold', 'throws']);
    expect(JSON.parse(JSON.stringify(identity))).toEqual(identity);

    const connection = await connectMcp({ name: 'mem', transport: 'in-process', server });
    try {
      for (const tool of connection.tools) {
        const known = identity.tools?.find((t) => t.name === tool.name);
        expect(known?.inputSchema).toEqual(tool.inputSchema);
        expect(known?.description).toBe(tool.description);
      }
    } finally {
      await connection.close();
    }
  });

  it('changes when an in-process tool is added, described differently, or disabled', () => {
    const { server } = createInProcessServer();
    const config: McpServerConfig = { name: 'mem', transport: 'in-process', server };
    const before = JSON.stringify(mcpIdentity(config));

    const added = server.registerTool('extra', { description: 'v1', inputSchema: { n: z.number().min(1) } }, () => ({ content: [] }));
    const withExtra = JSON.stringify(mcpIdentity(config));
    expect(withExtra).not.toBe(before);

    added.update({ description: 'v2' });
    const redescribed = JSON.stringify(mcpIdentity(config));
    expect(redescribed).not.toBe(withExtra);

    added.update({ paramsSchema: { n: z.number().min(5) } });
    expect(JSON.stringify(mcpIdentity(config))).not.toBe(redescribed);

    added.disable();
    expect(JSON.stringify(mcpIdentity(config))).toBe(before);
  });

  it('falls back to the name when the tool registry cannot be read', () => {
    const lookalike = { connect: async () => {}, close: async () => {}, server: {} } as unknown as McpServer;
    expect(mcpIdentity({ name: 'odd', transport: 'in-process', server: lookalike })).toEqual({
      name: 'odd',
      transport: 'in-process',
      tools: null,
    });
  });
});
