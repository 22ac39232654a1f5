import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { ProviderCallOptions, ProviderMessage } from './language-model.js';

/**
 * The loop's request (Messages-API shape) as AI SDK call options: the system text as one system
 * message, tool results as `tool` messages naming their tool, tools as function tools, the answer
 * schema as a JSON response format.
 */
export function providerCallOptions(params: MessageCreateParamsNonStreaming, signal: AbortSignal | undefined): ProviderCallOptions {
  const prompt: ProviderMessage[] = [];
  const system = systemText(params.system);
  if (system !== '') prompt.push({ role: 'system', content: system });
  const toolNames = new Map<string, string>();
  for (const message of params.messages) appendMessage(prompt, message, toolNames);
  const options: ProviderCallOptions = { prompt, maxOutputTokens: params.max_tokens };
  const temperature = (params as { temperature?: number }).temperature;
  if (temperature !== undefined) options.temperature = temperature;
  if (params.stop_sequences !== undefined) options.stopSequences = [...params.stop_sequences];
  if (params.tools !== undefined) {
    options.tools = [];
    for (const tool of params.tools) {
      if (!('input_schema' in tool)) continue;
      options.tools.push({
        type: 'function',
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        inputSchema: tool.input_schema as Record<string, unknown>,
      });
    }
  }
  const choice = params.tool_choice;
  if (choice !== undefined) {
    options.toolChoice =
      choice.type === 'tool' ? { type: 'tool', toolName: choice.name } : choice.type === 'any' ? { type: 'required' } : { type: choice.type };
  }
  const format = params.output_config?.format;
  if (format !== undefined && format !== null && format.type === 'json_schema') {
    options.responseFormat = { type: 'json', schema: format.schema as Record<string, unknown>, name: 'answer' };
  }
  if (signal !== undefined) options.abortSignal = signal;
  return options;
}

function systemText(system: MessageCreateParamsNonStreaming['system']): string {
  if (system === undefined) return '';
  if (typeof system === 'string') return system;
  return system.map((block: TextBlockParam) => block.text).join('\n\n');
}

function appendMessage(prompt: ProviderMessage[], message: MessageParam, toolNames: Map<string, string>): void {
  const blocks: readonly ContentBlockParam[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  if (message.role === 'assistant') {
    const content: Extract<ProviderMessage, { role: 'assistant' }>['content'] = [];
    for (const block of blocks) {
      if (block.type === 'text') content.push({ type: 'text', text: block.text });
      else if (block.type === 'tool_use') {
        toolNames.set(block.id, block.name);
        content.push({ type: 'tool-call', toolCallId: block.id, toolName: block.name, input: block.input });
      }
    }
    prompt.push({ role: 'assistant', content });
    return;
  }
  // A user turn may carry tool results and text: results go first, as the tool turn they answer.
  const results: Extract<ProviderMessage, { role: 'tool' }>['content'] = [];
  const texts: Array<{ type: 'text'; text: string }> = [];
  for (const block of blocks) {
    if (block.type === 'text') texts.push({ type: 'text', text: block.text });
    else if (block.type === 'tool_result') {
      const value = resultText(block.content);
      results.push({
        type: 'tool-result',
        toolCallId: block.tool_use_id,
        toolName: toolNames.get(block.tool_use_id) ?? 'unknown',
        output: block.is_error === true ? { type: 'error-text', value } : { type: 'text', value },
      });
    }
  }
  if (results.length > 0) prompt.push({ role: 'tool', content: results });
  if (texts.length > 0) prompt.push({ role: 'user', content: texts });
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content as Array<{ type?: string; text?: string }>) if (part.type === 'text' && typeof part.text === 'string') text += part.text;
  return text;
}
