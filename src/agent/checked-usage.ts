import type { ReportedUsage } from '../types/events.js';
import { isRecord } from '../util/is-record.js';

/** Why an answer's usage cannot be booked as it came. */
export type UsageProblem =
  | { readonly reason: 'missing' | 'malformed'; readonly detail: string }
  | { readonly reason: 'beyond-max-tokens'; readonly detail: string; readonly excess: number };

const FIELDS = ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const;

/**
 * What is wrong with an answer's usage for a budget, or undefined when it can be booked as
 * reported: every figure given is a finite number ≥ 0 (a negative one would lower what was
 * spent, NaN would poison every sum), input and output are both given (an answer without them,
 * as a stream without `include_usage` comes, would cost nothing), and the output is within the
 * request's `maxTokens` (what the reservation counted on).
 */
export function usageProblem(usage: unknown, maxTokens: number): UsageProblem | undefined {
  if (!isRecord(usage)) return { reason: 'missing', detail: 'the answer reports no usage' };
  for (const field of FIELDS) {
    const value = usage[field];
    if (value !== undefined && value !== null && !isCount(value)) {
      return { reason: 'malformed', detail: `\`${field}\` is ${typeof value === 'number' ? String(value) : typeof value}, not a token count` };
    }
  }
  const input = usage.input_tokens;
  const output = usage.output_tokens;
  if (input === undefined || input === null || output === undefined || output === null) {
    const absent = input === undefined || input === null ? (output === undefined || output === null ? 'input and output tokens' : 'input tokens') : 'output tokens';
    return { reason: 'missing', detail: `the answer reports no ${absent}` };
  }
  const excess = (output as number) - maxTokens;
  if (excess > 0) return { reason: 'beyond-max-tokens', detail: `${String(output)} output tokens for a request capped at ${maxTokens} (${excess} over)`, excess };
  return undefined;
}

/** The figures as the answer gave them: null when absent, NaN when not a number. */
export function reportedUsage(usage: unknown): ReportedUsage {
  const record = isRecord(usage) ? usage : {};
  return {
    inputTokens: figure(record.input_tokens),
    outputTokens: figure(record.output_tokens),
    cacheCreationInputTokens: figure(record.cache_creation_input_tokens),
    cacheReadInputTokens: figure(record.cache_read_input_tokens),
  };
}

/** A figure that can be counted, or 0: what an answer without a budget reports instead of a bad one. */
export function countOrZero(value: unknown): number {
  return isCount(value) ? (value as number) : 0;
}

function figure(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'number' ? value : Number.NaN;
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
