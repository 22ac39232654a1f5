import type { DurableSetting } from './durable-setting.js';
import type { Budget } from '../types/budget.js';
import type { Clock } from '../util/clock.js';
import type { ErrorMergeStrategy } from './error-merge.js';
import type { RetentionOptions } from './retention.js';
import type { ModelProviders } from '../types/model-providers.js';

/**
 * A workflow's `enableReflection` options as core carries them; the reflection layer reads them
 * (`WorkflowReflectionOptions` in `reflection/step-reflection.ts` is the public name). Core does
 * not import the agent layer, so the reflecting agent is structural: an `Agent` fits.
 * @public (in public signatures; knip)
 */
export interface WorkflowReflectionSetting {
  /** Attempts in all, the first included (default 2: one reflection, one retry). */
  maxAttempts?: number;
  /** Who reflects on failed steps (default: an agent with the default client and model). */
  agent?: ReflectingAgent;
}

/**
 * What a workflow's reflecting agent has: an `Agent`'s `prompt` and `reflect`.
 * @public (in public signatures; knip)
 */
export interface ReflectingAgent {
  prompt(...args: never[]): Promise<unknown>;
  reflect(...args: never[]): Promise<unknown>;
}

export interface WorkflowConfig {
  name?: string;
  /**
   * Why this workflow exists, at three levels. Every agent call inside it (or inside a child
   * workflow) gets a `# Why You're Here` section; the nearest declaration per level wins.
   */
  mission?: string;
  project?: string;
  goal?: string;
  /** A plan file: its active (`[/]`) goal is this workflow's goal when `goal` is not set. */
  plan?: string;
  /**
   * Reflect on a failed step and run it again with the revision (`true`, or options with the
   * reflecting `agent` and `maxAttempts`). The guidance reaches the agent calls of the retry.
   */
  enableReflection?: boolean | WorkflowReflectionSetting;
  /** Default for concurrent `@Task`s of this workflow; off means first error wins. */
  errorMergeStrategy?: ErrorMergeStrategy;
  /** Time source for timestamps, durations and retry backoff. Children inherit it. */
  clock?: Clock;
  /** History kept per node. Children inherit it. */
  retention?: Partial<RetentionOptions>;
  /**
   * A parentless workflow run inside another workflow's step mounts itself under that step.
   * `detached: true` keeps it a separate root.
   */
  detached?: boolean;
  /**
   * Makes a root workflow's runs durable: each settled step and agent call is stored, so
   * `resume(runId)` continues after a crash and `waitFor` can suspend the run (see the README).
   */
  durable?: DurableSetting;
  /**
   * Limits on everything this workflow runs (its steps, child workflows, agent calls): a model
   * request or tool call that could pass one is refused with `BudgetExceededError`.
   */
  budget?: Budget;
  /**
   * Model providers by name, for every agent in this workflow's tree (child workflows included):
   * with `{ ollama: createOpenAICompatible({...}) }`, an agent's `model: 'ollama/llama3.2'` runs on it.
   */
  providers?: ModelProviders;
  /**
   * Agent calls in this workflow's tree (child workflows included, unless one sets it false)
   * stream their answer text as `agentText` events while the model writes it, so a web page can
   * show it (`groundswell/web`). Off by default: the text is then in `agentPromptEnd` only.
   */
  streamText?: boolean;
}
