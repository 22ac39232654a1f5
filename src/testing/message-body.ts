import type { ContentBlock, Message, Usage } from '@anthropic-ai/sdk/resources/messages';
import type { ContentBlockInput, MessageTemplate, UsageInput } from './script-step.js';

/**
 * Usage reported when a step does not say: plain input and output tokens, no prompt-cache tokens.
 * A scripted run reports only the usage its script set, so an offline tree shows no cache activity
 * that nobody asked for; a test of cache roll-ups scripts its cache counts explicitly.
 */
export const DEFAULT_USAGE: Readonly<
  Pick<Usage, 'input_tokens' | 'output_tokens'> & {
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
  }
> = Object.freeze({
  input_tokens: 20,
  output_tokens: 10,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});

/** What a template needs from the request it answers. */
export interface MessageContext {
  /** 1-based request number, the same N as in `unexpected request #N`. */
  readonly requestNumber: number;
  readonly requestModel: string | undefined;
}

/** Completes a template into the exact `Message` shape the API returns for this request. */
export function buildMessage(template: MessageTemplate, context: MessageContext): Message {
  const content = (template.content ?? []).map((block, i) => completeBlock(block, context.requestNumber, i));
  const hasToolUse = content.some((block) => block.type === 'tool_use');
  return {
    id: template.id ?? `msg_scripted_${pad(context.requestNumber)}`,
    type: 'message',
    role: 'assistant',
    model: template.model ?? context.requestModel ?? 'scripted-model',
    content,
    stop_reason: template.stop_reason !== undefined ? template.stop_reason : hasToolUse ? 'tool_use' : 'end_turn',
    stop_sequence: template.stop_sequence ?? null,
    stop_details: template.stop_details ?? null,
    container: template.container ?? null,
    diagnostics: template.diagnostics ?? null,
    usage: buildUsage(template.usage),
  };
}

function completeBlock(block: ContentBlockInput, requestNumber: number, position: number): ContentBlock {
  switch (block.type) {
    case 'text':
      return { ...block, citations: block.citations ?? null };
    case 'tool_use':
      return {
        ...block,
        id: block.id ?? `toolu_scripted_${pad(requestNumber)}_${position + 1}`,
        caller: block.caller ?? { type: 'direct' },
      };
    default:
      return block;
  }
}

function buildUsage(input: UsageInput | undefined): Usage {
  const given = withoutUndefined(input ?? {});
  const cacheCreation = given.cache_creation_input_tokens ?? DEFAULT_USAGE.cache_creation_input_tokens;
  return {
    input_tokens: DEFAULT_USAGE.input_tokens,
    output_tokens: DEFAULT_USAGE.output_tokens,
    cache_read_input_tokens: DEFAULT_USAGE.cache_read_input_tokens,
    // The split must add up to the total, as the API's does.
    cache_creation: { ephemeral_5m_input_tokens: cacheCreation ?? 0, ephemeral_1h_input_tokens: 0 },
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: 'standard',
    speed: 'standard',
    ...given,
    cache_creation_input_tokens: cacheCreation,
  };
}

// `{ usage: { input_tokens: undefined } }` means "not given", not "erase the default".
function withoutUndefined(usage: UsageInput): UsageInput {
  const out: UsageInput = {};
  for (const [key, value] of Object.entries(usage)) {
    if (value !== undefined) Object.assign(out, { [key]: value });
  }
  return out;
}

function pad(n: number): string {
  return String(n).padStart(4, '0');
}
