import type { Message, MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { GoalAncestry } from '../ancestry/goal-ancestry.js';
import type { Prompt } from './prompt.js';
import type { ToolEffect } from '../tools/observation.js';
import type { SecretMasker } from '../util/secret-masker.js';
import type { ResolvedSettings } from './agent-settings.js';
import type { CallTree } from './call-tree.js';
import type { ToolCallRecord } from './tool-call-record.js';
import type { ModelAdapter } from './model/model-adapter.js';
import type { LanguageModelLike } from './model/language-model.js';

/** What a turn feature may read of its call (a `PromptCall` fits; structural, so no import cycle). */
export interface TurnCall {
  readonly agentName: string;
  /** The model the call's requests go through (the client's adapter, or a provider model's). */
  readonly model: ModelAdapter;
  readonly plan: { readonly model: string; readonly userContent: string };
  readonly tree: CallTree;
  /** Masks what the feature reports or keeps beyond the call. */
  readonly secrets: SecretMasker;
}

/** One model request of the tool loop, before it is sent: what a feature may look at and change. */
export interface TurnRequest {
  readonly call: TurnCall;
  /** 1 for the first request of the call (attempt), counting up each tool round. */
  readonly turn: number;
  /**
   * The conversation itself (not a copy): an edit here, such as compaction, is what every later
   * request builds on. Call `compacted()` after removing turns.
   */
  readonly messages: MessageParam[];
  /**
   * Extra system blocks of this request only, sent after the cached sections in this order (each
   * feature appends after those of the features before it; it may also replace one). Never kept
   * in the history, so they cannot pile up.
   */
  readonly systemBlocks: string[];
  /** Tells every feature (its `onCompaction`) that older turns of `messages` were just removed. */
  compacted(): void;
  /** What the features remember of the tool calls up to `maxTurn` (their `summaries`), one line each. */
  summaries(maxTurn: number): string[];
  /**
   * Sends a request of the feature's own (a grounding pass) to the call's model, held to the
   * loop's rules: reserved on every budget enclosing the call first (and kept by a durable run),
   * each retry reserved before it is sent, booked at its checked usage and metered on the call.
   * When it does not fit, throws the budget's `BudgetExceededError` and sends nothing: let that
   * end the call.
   */
  send(request: MessageCreateParamsNonStreaming): Promise<Message>;
  /**
   * Changes this request only (the next one is built from the call's settings again). Later
   * features' changes win field by field.
   */
  override(change: RequestOverride): void;
  /**
   * Ends the call before this request is sent: it fails with an `AgentLoopStoppedError` naming
   * this feature and the reason. Features after this one are not asked.
   */
  stop(reason: string): void;
}

/** What a feature may change for one request. */
export interface RequestOverride {
  /**
   * Another model for this request (priced and reported under its name): an Anthropic model id on
   * the Anthropic client, or a language model object on any call.
   */
  readonly model?: string | LanguageModelLike;
  /** Names of the call's tools offered on this request; the structured answer's tool always stays. */
  readonly tools?: readonly string[];
  /** `auto`, `any` (some tool), `none`, or one tool by name. */
  readonly toolChoice?: 'auto' | 'any' | 'none' | { readonly tool: string };
}

/** One finished tool call, with what its tool declares about it. */
export interface ToolCallDone {
  readonly turn: number;
  readonly record: ToolCallRecord;
  /** The tool's declared effect (trajectory checkpoints), when it has one. */
  readonly effect?: ToolEffect;
  /** The tool's declared target for this input, when it has one. */
  readonly target?: string;
}

/**
 * Something that runs around each model request and each tool round of one agent call (trajectory
 * checkpoints, plan reminders, compaction). Made per call by a factory registered with
 * `registerTurnFeature` (`turn-features.ts`); all
 * methods optional. The loop calls the features in registration order, and a call without any
 * features pays nothing for them.
 */
export interface TurnFeature {
  /** For errors and debugging. */
  readonly name: string;
  /**
   * A system section of this call, fixed when the call is prepared: sent after the retry guidance
   * on every request, covered by the cache key (a scoped slice of a parent agent's checkpoint).
   */
  readonly systemSection?: string;
  /** Before each model request: may edit the conversation, add system blocks, send a request of its own. */
  beforeRequest?(request: TurnRequest): void | Promise<void>;
  /** After each tool call, in the order the model asked for them. */
  afterToolCall?(done: ToolCallDone): void;
  /** After all tool calls of a round, before their results go back to the model. */
  afterToolRound?(turn: number, records: readonly ToolCallRecord[]): void;
  /** Older turns were just removed from the conversation (by this or another feature). */
  onCompaction?(turn: number): void;
  /** One line per tool call up to `maxTurn` that this feature remembers, for a compaction note. */
  summaries?(maxTurn: number): readonly string[];
  /**
   * The text this feature adds to the call's first request, read without changing state: the
   * cache key covers it. Only for features whose first-request text varies between calls.
   */
  firstRequestText?(call: TurnCall): Promise<string>;
}

/** What a feature's factory knows of the call being prepared. */
export interface TurnFeatureContext<Config> {
  readonly agentName: string;
  /** The agent's config as given: each factory reads its own option. */
  readonly config: Config;
  readonly prompt: Prompt<unknown>;
  readonly settings: ResolvedSettings;
  readonly goalAncestry: GoalAncestry;
  readonly secrets: SecretMasker;
  /**
   * The call sees nothing of the run it is made from (the judge, reflection, the plan drafter):
   * features that read the surrounding tree leave it alone.
   */
  readonly fresh: boolean;
}

/** Makes a call's feature, or returns undefined when the call does not use it. */
export type TurnFeatureFactory<Config> = (context: TurnFeatureContext<Config>) => TurnFeature | undefined;
