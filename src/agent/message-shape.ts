import { describeValue } from '../util/describe.js';
import { oneLine } from '../util/one-line.js';
import { isRecord } from '../util/is-record.js';


/**
 * What is wrong with an API answer, or undefined when it has every field the tool loop reads:
 * `content` (an array of blocks with a `type`; text blocks with `text`, tool_use blocks with
 * `id`, `name` and an object `input`), a `stop_reason`, `usage` token counts and `model`.
 * Block types the loop does not read pass as they are, so newer API blocks keep working.
 * A `stop_reason` of null means a stream ended before the model finished.
 */
export function messageProblem(value: unknown): string | undefined {
  if (typeof value === 'string') return `the body is text, not JSON: ${excerpt(value)}`;
  if (!isRecord(value)) return `the body is ${describeValue(value)}, not a message object`;
  if (value.type === 'error') return `the body is an error object: ${excerpt(JSON.stringify(value.error) ?? '')}`;
  if (!Array.isArray(value.content)) return '`content` is not an array';
  for (const [index, block] of value.content.entries()) {
    const problem = blockProblem(block);
    if (problem !== undefined) return `content[${index}] ${problem}`;
  }
  if (value.stop_reason === null) return '`stop_reason` is null: the answer ended before the model finished';
  if (typeof value.stop_reason !== 'string') return '`stop_reason` is missing';
  if (typeof value.model !== 'string') return '`model` is missing';
  if (!isRecord(value.usage)) return '`usage` is missing';
  for (const field of ['input_tokens', 'output_tokens'] as const) {
    if (!isCount(value.usage[field])) return `\`usage.${field}\` is not a token count`;
  }
  for (const field of ['cache_creation_input_tokens', 'cache_read_input_tokens'] as const) {
    const count = value.usage[field];
    if (count !== undefined && count !== null && !isCount(count)) return `\`usage.${field}\` is not a token count`;
  }
  return undefined;
}

function blockProblem(block: unknown): string | undefined {
  if (!isRecord(block) || typeof block.type !== 'string') return 'is not a content block';
  if (block.type === 'text' && typeof block.text !== 'string') return 'is a text block without text';
  if (block.type === 'tool_use') {
    if (typeof block.id !== 'string' || typeof block.name !== 'string') return 'is a tool_use block without id or name';
    if (!isRecord(block.input)) return 'is a tool_use block whose input is not an object';
  }
  return undefined;
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

const EXCERPT = 120;

function excerpt(text: string): string {
  // Only the start is shown; a huge page is not scanned whole.
  return JSON.stringify(oneLine(text.slice(0, EXCERPT * 4), EXCERPT));
}
