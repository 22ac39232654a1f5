import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { McpSdkMissingError, UsageError } from 'groundswell';
import { isMissingMcpSdk } from '../../src/mcp/load-mcp-runtime.js';
import { MCP_SDK_RANGE } from '../../src/mcp/mcp-sdk-missing-error.js';

// The MCP SDK is an optional peer (decision 0082). The packed-package test runs a call without it;
// these check the pieces: which failures count as "not installed", the message, the declared range.

function notFound(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('a missing MCP SDK', () => {
  it('is told apart from other failures: only a not-found of @modelcontextprotocol/sdk itself counts', () => {
    expect(isMissingMcpSdk(notFound('ERR_MODULE_NOT_FOUND', "Cannot find package '@modelcontextprotocol/sdk' imported from /app/dist/chunk.js"))).toBe(true);
    expect(isMissingMcpSdk(notFound('MODULE_NOT_FOUND', "Cannot find module '@modelcontextprotocol/sdk/client/index.js'"))).toBe(true);
    // The SDK is there but one of its own dependencies is not: a broken install, reported as it is.
    expect(isMissingMcpSdk(notFound('ERR_MODULE_NOT_FOUND', "Cannot find package 'ajv' imported from /app/node_modules/@modelcontextprotocol/sdk/x.js"))).toBe(false);
    expect(isMissingMcpSdk(notFound('ERR_MODULE_NOT_FOUND', "Cannot find package 'zod' imported from /app/dist/chunk.js"))).toBe(false);
    expect(isMissingMcpSdk(new SyntaxError('Unexpected token'))).toBe(false);
  });

  it('says what to install, names the servers and keeps the import failure as cause', () => {
    const cause = notFound('ERR_MODULE_NOT_FOUND', "Cannot find package '@modelcontextprotocol/sdk'");
    const error = new McpSdkMissingError(['kb', 'files'], { cause });
    expect(error).toBeInstanceOf(UsageError);
    expect(error.name).toBe('McpSdkMissingError');
    expect(error.cause).toBe(cause);
    expect(error.servers).toEqual(['kb', 'files']);
    expect(error.message).toBe(
      'MCP servers "kb", "files" need the `@modelcontextprotocol/sdk` package (an optional peer dependency), which is not installed: run `npm install @modelcontextprotocol/sdk@^1.32.2`.',
    );
    expect(new McpSdkMissingError(['kb'], { cause }).message).toMatch(/^MCP server "kb" needs the/);
  });

  it('names the range package.json declares, and the tests run on a pinned version inside it', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as Record<string, Record<string, unknown> | undefined>;
    expect(pkg.peerDependencies?.['@modelcontextprotocol/sdk']).toBe(MCP_SDK_RANGE);
    expect(pkg.peerDependenciesMeta?.['@modelcontextprotocol/sdk']).toEqual({ optional: true });
    expect(pkg.dependencies?.['@modelcontextprotocol/sdk']).toBeUndefined();
    expect(pkg.devDependencies?.['@modelcontextprotocol/sdk']).toBe(MCP_SDK_RANGE.replace(/^\^/, ''));
  });
});
