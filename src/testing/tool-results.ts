import type { RecordedRequest } from './recorded-request.js';
import { isRecord } from '../util/is-record.js';

/** One tool result the agent sent back to the model. */
export interface SentToolResult {
  readonly toolUseId: string;
  /** The result's text (text blocks joined with newlines when it was sent as blocks). */
  readonly content: string;
  readonly isError: boolean;
}

/**
 * The tool results in the request's last user message: what the agent sent back after running the
 * tools of the previous turn. Empty on a conversation's first request, so `toolResults(req).length
 * === 0` tells a responder the model has not called a tool yet in this conversation.
 */
export function toolResults(request: RecordedRequest): SentToolResult[] {
  const messages: readonly unknown[] = Array.isArray(request.body.messages) ? request.body.messages : [];
  const last = messages.at(-1);
  if (!isRecord(last) || last.role !== 'user' || !Array.isArray(last.content)) return [];
  const results: SentToolResult[] = [];
  // The body is whatever was sent, so each block is checked rather than trusted.
  for (const block of last.content as readonly unknown[]) {
    if (!isRecord(block) || block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
    results.push(Object.freeze({ toolUseId: block.tool_use_id, content: contentText(block.content), isError: block.is_error === true }));
  }
  return results;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content as readonly unknown[]) {
    if (isRecord(block) && block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
  }
  return parts.join('\n');
}

