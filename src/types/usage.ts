/** Tokens of one call or a rolled-up subtree, and its cost when prices are known. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
  /** US dollars of the calls whose model had a configured price (absent when none had). */
  costUsd?: number;
}
