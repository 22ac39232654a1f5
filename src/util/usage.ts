import type { TokenUsage } from '../types/usage.js';

export const ZERO_USAGE: Readonly<TokenUsage> = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cacheCreationInputTokens: 0,
  cacheReadInputTokens: 0,
});

/** A fresh zero usage (a literal: a spread of the frozen ZERO_USAGE copies slowly). */
export function zeroUsage(): TokenUsage {
  return { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };
}

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const sum: TokenUsage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheCreationInputTokens: a.cacheCreationInputTokens + b.cacheCreationInputTokens,
    cacheReadInputTokens: a.cacheReadInputTokens + b.cacheReadInputTokens,
  };
  if (a.costUsd !== undefined || b.costUsd !== undefined) sum.costUsd = (a.costUsd ?? 0) + (b.costUsd ?? 0);
  return sum;
}

/** `a` without `b` (what `b` added to it): never below zero. */
export function usageWithout(a: TokenUsage, b: TokenUsage): TokenUsage {
  const rest: TokenUsage = {
    inputTokens: Math.max(0, a.inputTokens - b.inputTokens),
    outputTokens: Math.max(0, a.outputTokens - b.outputTokens),
    cacheCreationInputTokens: Math.max(0, a.cacheCreationInputTokens - b.cacheCreationInputTokens),
    cacheReadInputTokens: Math.max(0, a.cacheReadInputTokens - b.cacheReadInputTokens),
  };
  if (a.costUsd !== undefined) rest.costUsd = Math.max(0, a.costUsd - (b.costUsd ?? 0));
  return rest;
}

export function totalTokens(usage: TokenUsage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheCreationInputTokens + usage.cacheReadInputTokens;
}

/** Whether two usage totals are equal, field by field (both absent counts as equal). */
export function sameUsage(a: TokenUsage | undefined, b: TokenUsage | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    a.inputTokens === b.inputTokens &&
    a.outputTokens === b.outputTokens &&
    a.cacheCreationInputTokens === b.cacheCreationInputTokens &&
    a.cacheReadInputTokens === b.cacheReadInputTokens &&
    a.costUsd === b.costUsd
  );
}
