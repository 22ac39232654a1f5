import type { SecretMasker } from '../util/secret-masker.js';
import type { ToolCallRecord } from './tool-call-record.js';

/** A tool call as a durable journal keeps it: JSON only, its output masked and bounded. */
export interface StoredToolCall {
  name: string;
  kind: 'local' | 'mcp';
  isError: boolean;
  output: string;
}

const STORED_OUTPUT_CHARS = 2_000;

/**
 * What a journal keeps of a call's tool calls. The output is masked with the call's secrets before
 * it is cut, so an env value a tool printed is never stored, not even in part.
 */
export function storeToolCalls(toolCalls: readonly ToolCallRecord[], secrets: SecretMasker): StoredToolCall[] {
  return toolCalls.map((tool) => ({ name: tool.name, kind: tool.kind, isError: tool.isError, output: secrets.text(tool.output).slice(0, STORED_OUTPUT_CHARS) }));
}

/** The stored tool calls of a replayed call, marked replayed (they did not run again). */
export function replayedToolCalls(stored: unknown): ToolCallRecord[] {
  if (!Array.isArray(stored)) return [];
  return stored.map((tool: Partial<StoredToolCall> | null, index) => ({
    toolUseId: `replayed-${index}`,
    name: typeof tool?.name === 'string' ? tool.name : 'unknown',
    kind: tool?.kind === 'mcp' ? 'mcp' : 'local',
    input: undefined,
    output: typeof tool?.output === 'string' ? tool.output : '',
    isError: tool?.isError === true,
    duration: 0,
    replayed: true,
  }));
}
