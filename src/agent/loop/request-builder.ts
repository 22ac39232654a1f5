import type { MessageCreateParamsNonStreaming, MessageParam, TextBlockParam, Tool, ToolChoice } from '@anthropic-ai/sdk/resources/messages/messages';
import { UsageError } from '../../errors/groundswell-error.js';
import type { PromptCall } from '../prompt-call.js';
import { ANSWER_TOOL, answerTool, outputConfig } from '../structured-output.js';
import type { ToolHandler } from '../toolset.js';
import type { RequestOverride } from '../turn-feature.js';

/**
 * Every request's fields, in the order they are sent (the key order is part of the body
 * recordings and cache keys compare), `messages` last and empty: each request sets its own.
 * Plain assignments: this runs once per call.
 */
export function requestBase<T>(
  call: PromptCall<T>,
  handlers: ReadonlyMap<string, ToolHandler>,
  toolMode: boolean,
): MessageCreateParamsNonStreaming {
  const { plan } = call;
  if (!toolMode && handlers.size === 0 && plan.systemParam !== undefined && plan.temperature === undefined && plan.stop === undefined) {
    // The usual request (a system prompt, a structured answer, no tools) as one literal, its
    // messages included: a shape made by adding fields dies with its last request, and the code
    // reading requests (ours, the SDK's) with it, at every full GC between bursts of calls.
    return { model: plan.model, max_tokens: plan.maxTokens, system: plan.systemParam, output_config: outputConfig(call.prompt.responseFormat), messages: NO_MESSAGES };
  }
  // `temperature` is sent as before, though this SDK's request type no longer lists it.
  const base: Omit<MessageCreateParamsNonStreaming, 'messages'> & { temperature?: number; messages?: MessageParam[] } = {
    model: plan.model,
    max_tokens: plan.maxTokens,
  };
  if (plan.systemParam !== undefined) base.system = plan.systemParam;
  if (plan.temperature !== undefined) base.temperature = plan.temperature;
  if (plan.stop !== undefined) base.stop_sequences = [...plan.stop];
  const tools: Tool[] = [];
  for (const handler of handlers.values()) tools.push(handler.definition);
  if (toolMode) tools.push(answerTool(call.prompt.responseFormat));
  if (tools.length > 0) base.tools = tools;
  if (toolMode) base.tool_choice = handlers.size > 0 ? { type: 'any' } : { type: 'tool', name: ANSWER_TOOL };
  else base.output_config = outputConfig(call.prompt.responseFormat);
  base.messages = NO_MESSAGES;
  return base as MessageCreateParamsNonStreaming;
}

/** What a base holds until a request sets its messages (never sent: every request sets them). */
const NO_MESSAGES = Object.freeze([]) as unknown as MessageParam[];

/** The request with the features' blocks after the cached system sections (for this request only). */
export function withSystemBlocks(params: MessageCreateParamsNonStreaming, texts: readonly string[]): MessageCreateParamsNonStreaming {
  const system = params.system;
  const blocks: TextBlockParam[] =
    system === undefined ? [] : typeof system === 'string' ? [{ type: 'text', text: system }] : [...system];
  for (const text of texts) blocks.push({ type: 'text', text });
  return { ...params, system: blocks };
}

/**
 * The request with the features' override for this request applied: another model, a subset of
 * the call's tools (the structured answer tool always stays), another tool choice.
 */
export function withOverride(params: MessageCreateParamsNonStreaming, change: RequestOverride, feature: string): MessageCreateParamsNonStreaming {
  const next: MessageCreateParamsNonStreaming = { ...params };
  if (change.model !== undefined) next.model = typeof change.model === 'string' ? change.model : change.model.modelId;
  if (change.tools !== undefined) {
    const offered = params.tools ?? [];
    const known = new Set(offered.map(toolName));
    const unknown = change.tools.find((name) => !known.has(name));
    if (unknown !== undefined) {
      throw new UsageError(`Turn feature "${feature}" offered tool "${unknown}", which this call does not have (it has: ${[...known].join(', ') || 'none'}).`);
    }
    const kept = offered.filter((tool) => change.tools?.includes(toolName(tool)) === true || toolName(tool) === ANSWER_TOOL);
    if (kept.length > 0) next.tools = kept;
    else {
      delete next.tools;
      delete next.tool_choice;
    }
  }
  if (change.toolChoice !== undefined && next.tools !== undefined) next.tool_choice = toolChoiceOf(change.toolChoice);
  return next;
}

/** Every tool this loop offers has a name (server tool sets without one are never sent). */
function toolName(tool: object): string {
  return 'name' in tool && typeof tool.name === 'string' ? tool.name : '';
}

function toolChoiceOf(choice: NonNullable<RequestOverride['toolChoice']>): ToolChoice {
  if (typeof choice === 'string') return { type: choice };
  return { type: 'tool', name: choice.tool };
}
