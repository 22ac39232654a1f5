import type { Attributes } from '@opentelemetry/api';
import type { TokenUsage } from '../types/usage.js';

/** The provider when an event names none: the Anthropic client. */
const NATIVE_PROVIDER = 'anthropic';

/** Who answers: `gen_ai.provider.name` and, for consumers of the conventions before 1.37, `gen_ai.system`. */
export function providerAttributes(provider: string | undefined): Attributes {
  const name = provider ?? NATIVE_PROVIDER;
  return { 'gen_ai.provider.name': name, 'gen_ai.system': name };
}

/**
 * Token counts as the GenAI conventions define them: `input_tokens` includes the prompt-cache
 * reads and writes (Anthropic reports them apart), which also get their own attributes.
 */
export function usageAttributes(usage: TokenUsage): Attributes {
  const out: Attributes = {
    'gen_ai.usage.input_tokens': usage.inputTokens + usage.cacheReadInputTokens + usage.cacheCreationInputTokens,
    'gen_ai.usage.output_tokens': usage.outputTokens,
    'gen_ai.usage.cache_read.input_tokens': usage.cacheReadInputTokens,
    'gen_ai.usage.cache_creation.input_tokens': usage.cacheCreationInputTokens,
  };
  if (usage.costUsd !== undefined) out['groundswell.cost_usd'] = usage.costUsd;
  return out;
}

/** `gen_ai.response.finish_reasons`: the stop reason, when the model gave one. */
export function finishReasons(stopReason: string | null): Attributes {
  return stopReason === null ? {} : { 'gen_ai.response.finish_reasons': [stopReason] };
}

/** An answer as `gen_ai.output.messages` (the conventions' JSON shape), for `captureContent`. */
export function outputMessages(text: string, stopReason: string | null): string {
  return JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: text }], finish_reason: stopReason ?? 'unknown' }]);
}
