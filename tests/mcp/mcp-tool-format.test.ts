import { describe, expect, it } from 'vitest';
import { qualifyMcpToolName, qualifyMcpToolNames } from '../../src/mcp/mcp-tool-name.js';
import { toMcpToolResult } from '../../src/mcp/mcp-tool-result.js';

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;

describe('qualified MCP tool names', () => {
  it('prefixes server and tool and replaces characters the API rejects', () => {
    expect(qualifyMcpToolName('fs', 'read_file')).toBe('mcp__fs__read_file');
    expect(qualifyMcpToolName('fs', 'files.read/v2')).toBe('mcp__fs__files_read_v2');
  });

  it('shortens long names to 64 chars, keeping long names with a common prefix apart', () => {
    const server = 's'.repeat(40);
    const a = qualifyMcpToolName(server, `${'t'.repeat(60)}_alpha`);
    const b = qualifyMcpToolName(server, `${'t'.repeat(60)}_beta`);
    expect(a).toMatch(VALID);
    expect(b).toMatch(VALID);
    expect(a).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(a.startsWith(`mcp__${server}__ttt`)).toBe(true);
  });

  it('gives tools whose sanitised names clash distinct names, whatever the listing order', () => {
    const forward = qualifyMcpToolNames('x', ['a.b', 'a_b', 'plain']);
    const backward = qualifyMcpToolNames('x', ['plain', 'a_b', 'a.b']);
    expect(forward.get('plain')).toBe('mcp__x__plain');
    expect(forward.get('a.b')).not.toBe(forward.get('a_b'));
    expect(forward.get('a.b')).toMatch(VALID);
    expect([...forward.entries()].sort()).toEqual([...backward.entries()].sort());
  });
});

describe('toMcpToolResult', () => {
  it('joins text parts and summarises media', () => {
    const result = toMcpToolResult({
      content: [
        { type: 'text', text: 'one' },
        { type: 'image', data: Buffer.from('abcdef').toString('base64'), mimeType: 'image/png' },
        { type: 'audio', data: Buffer.from('abc').toString('base64'), mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'file body' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: Buffer.from('xy').toString('base64'), mimeType: 'application/octet-stream' } },
        { type: 'resource_link', uri: 'file:///c', name: 'c' },
      ],
    });
    expect(result.isError).toBe(false);
    expect(result.content).toBe(
      [
        'one',
        '[image: image/png, 6 bytes]',
        '[audio: audio/wav, 3 bytes]',
        '[resource: file:///a.txt]\nfile body',
        '[resource: file:///b.bin, application/octet-stream, 2 bytes]',
        '[resource link: c <file:///c>]',
      ].join('\n'),
    );
  });

  it('keeps the error flag and falls back to structured content when there is no content', () => {
    expect(toMcpToolResult({ content: [{ type: 'text', text: 'nope' }], isError: true })).toMatchObject({ content: 'nope', isError: true });
    expect(toMcpToolResult({ content: [], structuredContent: { n: 1 } }).content).toBe('{"n":1}');
    expect(toMcpToolResult({ toolResult: { legacy: true } }).content).toBe('{"legacy":true}');
  });
});
