import { createHash } from 'node:crypto';

/** The API's limit for tool names. */
const MAX_TOOL_NAME = 64;
const HASH_LENGTH = 8;

/**
 * `mcp__<server>__<tool>` restricted to [a-zA-Z0-9_-] and 64 chars. A name that had to be
 * shortened gets a hash of the original tool name at the end, so two long tool names that share
 * a prefix still get different qualified names.
 */
export function qualifyMcpToolName(server: string, tool: string): string {
  const full = `mcp__${sanitize(server)}__${sanitize(tool)}`;
  if (full.length <= MAX_TOOL_NAME) return full;
  return withHash(full, tool);
}

/**
 * Qualified names for every tool of one server. Sanitising can map distinct names onto one
 * (`a.b` and `a_b`); every member of such a clash gets a hash suffix, whatever order the server
 * listed them in, so the names stay stable between connections.
 */
export function qualifyMcpToolNames(server: string, tools: readonly string[]): Map<string, string> {
  const byQualified = new Map<string, string[]>();
  for (const tool of tools) {
    const qualified = qualifyMcpToolName(server, tool);
    byQualified.set(qualified, [...(byQualified.get(qualified) ?? []), tool]);
  }
  const result = new Map<string, string>();
  for (const [qualified, originals] of byQualified) {
    for (const tool of originals) {
      result.set(tool, originals.length === 1 ? qualified : withHash(qualified, tool));
    }
  }
  return result;
}

function sanitize(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_');
}

function withHash(base: string, tool: string): string {
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, HASH_LENGTH);
  const room = Math.min(base.length, MAX_TOOL_NAME - HASH_LENGTH - 1);
  return `${base.slice(0, room)}_${hash}`;
}
