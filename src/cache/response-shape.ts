import { isRecord } from '../util/is-record.js';

const USAGE_FIELDS = ['inputTokens', 'outputTokens', 'cacheCreationInputTokens', 'cacheReadInputTokens'] as const;

/**
 * What is wrong with a stored response, or undefined when it is a `CachedResponse`. The same
 * check guards writes (a `UsageError` naming the field) and reads (a damaged entry is a miss).
 */
export function responseProblem(data: unknown): string | undefined {
  if (!isRecord(data)) return 'the response is not an object';
  if (!('value' in data)) return '`value` is missing';
  if (typeof data.model !== 'string') return '`model` must be a string';
  if (data.stopReason !== null && typeof data.stopReason !== 'string') return '`stopReason` must be a string or null';
  if (!isFiniteNonNegative(data.storedAt)) return '`storedAt` must be a finite, non-negative number (epoch ms)';
  const usage = data.usage;
  if (!isRecord(usage)) return '`usage` must be an object';
  for (const field of USAGE_FIELDS) {
    if (!isFiniteNonNegative(usage[field])) return `\`usage.${field}\` must be a finite, non-negative number`;
  }
  return undefined;
}

export function isFiniteNonNegative(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
