/** Tokens of one call or a rolled-up subtree, and its cost when prices are known. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
  /** US dollars; present when a configured price covered the calls counted. */
  costUsd?: number;
}
