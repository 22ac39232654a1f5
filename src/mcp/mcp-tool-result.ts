import type { CallToolResult, CompatibilityCallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';

/** A tool call's outcome, flattened to what a model's tool_result can carry. */
export interface McpToolResult {
  /** Text parts joined by newlines; images, audio and binary resources as short bracketed summaries. */
  readonly content: string;
  /** True for results the server flagged as errors and for calls that never got a result. */
  readonly isError: boolean;
  /** The server's result as received, or the error that stopped the call. */
  readonly raw: unknown;
}

/** Accepts the pre-2024-11 `{ toolResult }` shape too, since `Client.callTool` is typed to return it. */
export function toMcpToolResult(result: CallToolResult | CompatibilityCallToolResult): McpToolResult {
  if (!('content' in result) || !Array.isArray(result.content)) {
    return { content: JSON.stringify(result.toolResult ?? null), isError: false, raw: result };
  }
  const parts = result.content.map(describeContent);
  // Tools with an output schema may answer only in structuredContent; the model still needs it.
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent));
  }
  return { content: parts.join('\n'), isError: result.isError === true, raw: result };
}

/** A result for a call that failed before the server could answer. */
export function mcpErrorResult(content: string, raw: unknown): McpToolResult {
  return { content, isError: true, raw };
}

function describeContent(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      // Base64 media would flood the context window; the model only learns that it was there.
      return `[${block.type}: ${block.mimeType}, ${Buffer.byteLength(block.data, 'base64')} bytes]`;
    case 'resource': {
      const { resource } = block;
      if ('text' in resource) return `[resource: ${resource.uri}]\n${resource.text}`;
      return `[resource: ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ''}, ${Buffer.byteLength(resource.blob, 'base64')} bytes]`;
    }
    case 'resource_link':
      return `[resource link: ${block.name} <${block.uri}>]`;
  }
  // Unreachable for the content types the SDK validates today; kept for servers ahead of it.
  return `[${String((block as { type?: unknown }).type)} content]`;
}
