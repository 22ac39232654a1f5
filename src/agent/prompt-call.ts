import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { GoalAncestry } from '../ancestry/goal-ancestry.js';
import type { Reflector, Revision } from './revision.js';
import type { Cache } from '../cache/cache.js';
import type { SystemSections } from '../cache/cache-key.js';
import type { CacheMissInfo } from '../types/cache.js';
import type { SecretMasker } from '../util/secret-masker.js';
import type { Prompt } from './prompt.js';
import type { TokenUsage } from '../types/usage.js';
import type { OriginalTimes } from '../types/original-times.js';
import type { ResolvedSettings } from './agent-settings.js';
import type { CallTree } from './call-tree.js';
import type { MissingPriceWarning } from './missing-price-warning.js';
import type { Pricing } from './pricing.js';
import type { ToolCallRecord } from './tool-call-record.js';
import type { TurnFeature } from './turn-feature.js';
import type { ModelAdapter } from './model/model-adapter.js';
import type { BudgetLedger } from '../budgets/budget-ledger.js';

/** What is sent, fixed before any interceptor runs so the cache key covers exactly the request. */
export interface RequestPlan {
  readonly model: string;
  /** The full system prompt text (what the cache key covers), or undefined when there is none. */
  readonly system: string | undefined;
  /** The request's `system` field as sent (see SystemPrompt); absent when undefined. */
  readonly systemParam: string | TextBlockParam[] | undefined;
  /** The system text by section (identity, ancestry, guidance), for the cache key's part hashes. */
  readonly systemSections: SystemSections;
  /** The goal ancestry rendered into the system prompt (empty when there is none). */
  readonly goalAncestry: GoalAncestry;
  /** The user message: the prompt's text plus its data. */
  readonly userContent: string;
  readonly maxTokens: number;
  readonly temperature: number | undefined;
  readonly stop: readonly string[] | undefined;
}

/** Text, tool and usage events of a streamed call, then the validated result. */
export type AgentStreamEvent<T> =
  | { type: 'text'; text: string }
  | { type: 'toolUse'; toolUseId: string; name: string; input: unknown }
  | { type: 'toolResult'; toolUseId: string; name: string; output: string; isError: boolean }
  | { type: 'usage'; usage: TokenUsage; turn: number }
  | { type: 'result'; value: T };

interface UsageMeter {
  usage: TokenUsage;
  turns: number;
  /**
   * What an earlier process spent on this call before it stopped to wait for approval: part of
   * the call's usage (its record, budgets), not of this process's node, which the earlier
   * process's node already shows.
   */
  carried?: TokenUsage;
}

/** One agent call as it moves through the interceptor chain. */
export interface PromptCall<T> {
  readonly agentName: string;
  readonly promptId: string;
  readonly prompt: Prompt<T>;
  readonly settings: ResolvedSettings;
  readonly plan: RequestPlan;
  /** What the tool loop sends each request through (the client's adapter). */
  readonly model: ModelAdapter;
  /** The store, when caching is on for this call. */
  readonly cache: Cache | undefined;
  /**
   * The agent has a store in its config or `enableCache` on it, so a call with caching off is
   * reported as a `disabled` miss.
   */
  readonly cacheConfigured: boolean;
  readonly pricing: Pricing | undefined;
  /** The agent's record of models it warned have no price in `pricing`. */
  readonly missingPrice: MissingPriceWarning;
  readonly tree: CallTree;
  /** Tokens and turns spent so far, kept up to date turn by turn so a failed call still reports them. */
  readonly meter: UsageMeter;
  /**
   * What runs around each model request and tool round of this call (compaction, plan reminders,
   * trajectory checkpoints; see `turn-features.ts`), in order; empty when the call uses none.
   */
  readonly turnFeatures: readonly TurnFeature[];
  /** The secrets to mask in what outlives the call: its env and redacted values, and all its run knows. */
  readonly secrets: SecretMasker;
  /** The agent that reflects on a failed attempt of this call. */
  readonly reflector: () => Reflector;
  /** The same call with a reflection's revision applied: new user text, guidance in the system prompt. */
  readonly revise: (revision: Revision) => PromptCall<T>;
  /** Every budget enclosing the call (its agent's and prompt's included), nearest first; empty for most calls. */
  readonly budgets: readonly BudgetLedger[];
  /** Set for `agent.stream()`: the loop streams each turn and reports events here. */
  readonly onStream: ((event: AgentStreamEvent<T>) => void) | undefined;
}

export interface PromptOutcome<T> {
  readonly value: T;
  /** The answer as JSON data, before the schema parsed it (what the cache stores). */
  readonly answerData: unknown;
  /** The answer's JSON text as the model sent it (native structured output): the tree's copy, not serialized again. */
  readonly answerText?: string | undefined;
  readonly usage: TokenUsage;
  readonly turns: number;
  readonly stopReason: string | null;
  readonly model: string;
  readonly cached: boolean;
  /** Served from a durable run's store on resume: this call completed before the run was interrupted. */
  readonly replayed?: boolean;
  /** When a replayed call ran, where its journal kept it: the call's node shows these times. */
  readonly ran?: OriginalTimes;
  /** Why the cache did not answer this call; absent on a hit and when the agent does not cache. */
  readonly cacheMiss?: CacheMissInfo;
  readonly toolCalls: readonly ToolCallRecord[];
}

export type PromptHandler = <T>(call: PromptCall<T>) => Promise<PromptOutcome<T>>;

/**
 * A cross-cutting concern around the call (tree, hooks, cache; later reflection and grounding):
 * it may act before and after `next`, or answer without calling it.
 */
export type PromptInterceptor = <T>(call: PromptCall<T>, next: PromptHandler) => Promise<PromptOutcome<T>>;

/** Wraps `core` in the interceptors, the first one outermost. */
export function composeInterceptors(interceptors: readonly PromptInterceptor[], core: PromptHandler): PromptHandler {
  return interceptors.reduceRight<PromptHandler>(
    (next, interceptor) => (call) => interceptor(call, next),
    core,
  );
}
