import type {
  Base64ImageSource,
  ContentBlockParam,
  ImageBlockParam,
  OutputConfig,
  TextBlockParam,
  Tool,
  ToolChoice,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { isRecord } from '../../util/is-record.js';
import type { RequestBody } from '../recorded-request.js';

type Content = string | ContentBlockParam[];
// Chat Completions turns map onto these two roles only; system text goes to `system`.
type Turn = { role: 'user' | 'assistant'; content: Content };

/**
 * A Chat Completions request body in the Messages API shape the script and its helpers read
 * (`route`, `toolResults`, `requestData`, `callingAgent`). System and developer messages become
 * `system` text blocks, one each; `tool` messages become a user turn of `tool_result` blocks;
 * assistant `tool_calls` become `tool_use` blocks with their arguments parsed; consecutive turns
 * of one role are merged, as the Messages API requires them to alternate. The body is whatever
 * the client sent, so every field is checked and anything unrecognised is left out (the original
 * stays on the record as `chatCompletions`).
 */
export function toMessagesRequest(chat: Readonly<Record<string, unknown>>): RequestBody {
  const system: TextBlockParam[] = [];
  const turns: Turn[] = [];
  for (const message of Array.isArray(chat.messages) ? (chat.messages as readonly unknown[]) : []) {
    if (!isRecord(message)) continue;
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push({ type: 'text', text: textOf(message.content) });
        break;
      case 'user':
        append(turns, 'user', userContent(message.content));
        break;
      case 'assistant':
        append(turns, 'assistant', assistantContent(message));
        break;
      case 'tool':
        append(turns, 'user', [toolResult(message)]);
        break;
    }
  }
  const maxTokens = chat.max_completion_tokens ?? chat.max_tokens;
  const toolChoice = toolChoiceOf(chat.tool_choice, chat.parallel_tool_calls);
  const outputConfig = outputConfigOf(chat.response_format);
  const stop = typeof chat.stop === 'string' ? [chat.stop] : Array.isArray(chat.stop) ? chat.stop.filter(isString) : [];
  return {
    ...(typeof chat.model === 'string' ? { model: chat.model } : {}),
    ...(typeof maxTokens === 'number' ? { max_tokens: maxTokens } : {}),
    ...(system.length > 0 ? { system } : {}),
    messages: turns,
    ...(Array.isArray(chat.tools) ? { tools: toolsOf(chat.tools as readonly unknown[]) } : {}),
    ...(toolChoice === undefined ? {} : { tool_choice: toolChoice }),
    ...(typeof chat.temperature === 'number' ? { temperature: chat.temperature } : {}),
    ...(typeof chat.top_p === 'number' ? { top_p: chat.top_p } : {}),
    ...(stop.length > 0 ? { stop_sequences: stop } : {}),
    ...(outputConfig === undefined ? {} : { output_config: outputConfig }),
    ...(chat.stream === true ? { stream: true } : {}),
  };
}

function append(turns: Turn[], role: Turn['role'], content: Content): void {
  const last = turns.at(-1);
  if (last?.role !== role) {
    turns.push({ role, content });
    return;
  }
  turns[turns.length - 1] = { role, content: [...blocksOf(last.content), ...blocksOf(content)] };
}

function blocksOf(content: Content): ContentBlockParam[] {
  if (typeof content !== 'string') return content;
  return content === '' ? [] : [{ type: 'text', text: content }];
}

// A plain string stays a string, as a client sending `content: 'hi'` would expect to find it.
function userContent(content: unknown): Content {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return [];
  const blocks: ContentBlockParam[] = [];
  for (const part of content as readonly unknown[]) {
    if (!isRecord(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') blocks.push({ type: 'text', text: part.text });
    if (part.type === 'image_url') {
      const image = imageOf(part.image_url);
      if (image !== undefined) blocks.push(image);
    }
  }
  return blocks;
}

const IMAGE_TYPES: ReadonlySet<string> = new Set<Base64ImageSource['media_type']>([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
]);

function imageOf(value: unknown): ImageBlockParam | undefined {
  const url = isRecord(value) ? value.url : value;
  if (typeof url !== 'string') return undefined;
  const inline = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  const mediaType = inline?.[1];
  if (inline !== null && mediaType !== undefined && IMAGE_TYPES.has(mediaType)) {
    const media_type = mediaType as Base64ImageSource['media_type'];
    return { type: 'image', source: { type: 'base64', media_type, data: inline[2] ?? '' } };
  }
  return { type: 'image', source: { type: 'url', url } };
}

function assistantContent(message: Readonly<Record<string, unknown>>): Content {
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as readonly unknown[]) : [];
  const uses = calls.flatMap((call): ToolUseBlockParam[] => {
    if (!isRecord(call) || !isRecord(call.function)) return [];
    const { name, arguments: args } = call.function;
    return [
      {
        type: 'tool_use',
        id: typeof call.id === 'string' ? call.id : '',
        name: typeof name === 'string' ? name : '',
        input: parseArguments(args),
      },
    ];
  });
  if (uses.length === 0 && (typeof message.content === 'string' || message.content == null)) {
    return message.content ?? '';
  }
  const text = textOf(message.content);
  return [...(text === '' ? [] : [{ type: 'text' as const, text }]), ...uses];
}

// The API sends arguments as a JSON string; one that does not parse is kept as sent, so a test
// can still see what the client wrote.
function parseArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {};
  if (args.trim() === '') return {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

// Chat Completions has no error flag on a tool result, so `is_error` is never set.
function toolResult(message: Readonly<Record<string, unknown>>): ToolResultBlockParam {
  const id = typeof message.tool_call_id === 'string' ? message.tool_call_id : '';
  return { type: 'tool_result', tool_use_id: id, content: textOf(message.content) };
}

function toolsOf(tools: readonly unknown[]): Tool[] {
  return tools.flatMap((tool): Tool[] => {
    if (!isRecord(tool) || tool.type !== 'function' || !isRecord(tool.function)) return [];
    const { name, description, parameters, strict } = tool.function;
    if (typeof name !== 'string') return [];
    return [
      {
        name,
        ...(typeof description === 'string' ? { description } : {}),
        input_schema: isRecord(parameters) ? (parameters as Tool.InputSchema) : { type: 'object' },
        ...(typeof strict === 'boolean' ? { strict } : {}),
      },
    ];
  });
}

function toolChoiceOf(choice: unknown, parallel: unknown): ToolChoice | undefined {
  const serial = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...serial };
  if (isRecord(choice) && isRecord(choice.function) && typeof choice.function.name === 'string') {
    return { type: 'tool', name: choice.function.name, ...serial };
  }
  if (choice === 'auto' || parallel === false) return { type: 'auto', ...serial };
  return undefined;
}

/**
 * `json_schema` keeps its schema; `json_object` (what a client sends when it does not pass the
 * schema on) is recorded as a schema admitting any object, the nearest Messages API equivalent.
 */
function outputConfigOf(format: unknown): OutputConfig | undefined {
  if (!isRecord(format)) return undefined;
  if (format.type === 'json_object') return { format: { type: 'json_schema', schema: { type: 'object' } } };
  if (format.type !== 'json_schema') return undefined;
  const schema = isRecord(format.json_schema) ? format.json_schema.schema : undefined;
  return { format: { type: 'json_schema', schema: isRecord(schema) ? schema : { type: 'object' } } };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const part of content as readonly unknown[]) {
    if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') parts.push(part.text);
  }
  return parts.join('\n');
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}
