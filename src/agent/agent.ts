import type Anthropic from '@anthropic-ai/sdk';
import type { Cache } from '../cache/cache.js';
import { LruCacheStore } from '../cache/lru-store.js';
import { UsageError } from '../errors/groundswell-error.js';
import { Prompt } from './prompt.js';
import { describeValue } from '../util/describe.js';
import { AGENT_DEFAULTS, resolveSettings, withNamedModel, type AgentSettings, type PromptOverrides, type ResolvedSettings } from './agent-settings.js';
import { AgentStream } from './agent-stream.js';
import { CallTree } from './call-tree.js';
import { MissingPriceWarning } from './missing-price-warning.js';
import type { Pricing } from './pricing.js';
import { callPipeline } from './call-interceptors.js';
import {
  type AgentStreamEvent,
  type PromptCall,
  type PromptHandler,
  type PromptOutcome,
  type RequestPlan,
} from './prompt-call.js';
import { buildUserContent } from './request-plan.js';
import { SystemPromptBuilder } from './system-prompt.js';
import { zeroUsage } from '../util/usage.js';
import { reflectionAttempts } from './config/reflection-config.js';
import { guidanceAt } from '../core/step-guidance.js';
import { checkpointMode, groundingMode, type TrajectoryOptions } from './config/trajectory-config.js';
import type { PlanWatchOptions } from './config/plan-watch-options.js';
import { getCurrentWorkflow } from '../core/ambient.js';
import { turnFeaturesFor } from './turn-features.js';
import type { TurnFeature } from './turn-feature.js';
import { currentScope } from '../core/scope.js';
import type { Workflow } from '../core/workflow.js';
import { deriveGoalAncestry, maskAncestry, mergeAncestry } from '../ancestry/derive-ancestry.js';
import { callSecrets } from '../secrets/call-secrets.js';
import { maskedPromptName } from './masked-prompt-name.js';
import { loadAnthropicRuntime } from './load-anthropic-runtime.js';
import { anthropicAdapter } from './model/anthropic-adapter.js';
import { providerAdapter } from './model/provider-adapter.js';
import { addRunSecrets, runMasker } from '../core/run-secrets.js';
import type { SecretMasker } from '../util/secret-masker.js';
import { startsFresh } from './fresh-start.js';
import { normalizeAncestry, type GoalAncestry } from '../ancestry/goal-ancestry.js';
import { validateAgentConfig, validateGoalAncestry, validateOverrides } from './config/agent-config.schema.js';
import { loadZodChecked, zodReady } from '../checks/zod-version.js';
import type { Budget } from '../types/budget.js';
import { armCallBudgets, callBudgets } from './call-budgets.js';
import { chargedBudgets } from './enclosing-budgets.js';
import type { ModelProviders } from '../types/model-providers.js';
import { isModelName, modelOfName } from './model/model-by-name.js';
import { providersAround } from '../core/providers-around.js';

export interface AgentConfig extends AgentSettings {
  name: string;
  /**
   * The Anthropic client (or the offline kit's `model.client()`); default `new Anthropic()`, made
   * on the first call (the SDK loads then, not on `import 'groundswell'`).
   */
  client?: Anthropic;
  /**
   * Where `enableCache` stores answers; default an in-memory LRU store created per agent. With a
   * store here, a call that turns caching off reports a `cacheMiss` with reason `disabled`.
   */
  cache?: Cache;
  /** Prices per model, for cost in usage rollups. */
  pricing?: Pricing;
  /**
   * Providers for models named `provider/model` (`model: 'ollama/llama3.2'`), looked up here
   * first, then on the workflows around the call (`providers` on a workflow serves all its agents).
   */
  providers?: ModelProviders;
  /** Explicit goal ancestry; each level set here wins over the one derived from the workflows. */
  goalAncestry?: GoalAncestry;
  /** Trajectory checkpoints (default from GROUNDSWELL_TRAJECTORY_CHECKPOINT, else off). */
  trajectory?: TrajectoryOptions;
  /** A plan file to keep in view while working (see goal plans in the README). */
  plan?: PlanWatchOptions;
  /**
   * Limits on each call of this agent (its requests, tool calls and what they start); nested in
   * every budget around the call. A request that could pass one fails with `BudgetExceededError`.
   */
  budget?: Budget;
}

/** What `agent.execute()` resolves to: the value and what the call took. */
export type AgentResult<T> = PromptOutcome<T> & { readonly duration: number };

/**
 * Runs prompts against the Anthropic Messages API. Holds configuration only: every call's state
 * lives in that call, so one agent can serve many concurrent workflows.
 */
export class Agent {
  readonly name: string;
  readonly config: Readonly<AgentConfig>;
  private clientRef: Anthropic | undefined;
  private cacheRef: Cache | undefined;
  private explicitAncestry: GoalAncestry | null;
  private readonly systemPrompt = new SystemPromptBuilder();
  private reflectorRef: Agent | undefined;
  private readonly missingPrice = new MissingPriceWarning();
  private readonly settingsByPrompt = new WeakMap<object, ResolvedSettings>();
  /** A prompt's settings with its `provider/model` name resolved, per model it resolved to. */
  private readonly settingsByModel = new WeakMap<ResolvedSettings, Map<unknown, ResolvedSettings>>();
  /** `reflector` as every call hands it on: one function per agent, not one per call. */
  private readonly reflectorOf = (): Agent => this.reflector();
  /** The last call's prompt name and the node name made of it (see `nodeName`). */
  private lastPromptName: string | undefined = undefined;
  private lastNodeName = '';

  constructor(config: AgentConfig) {
    validateAgentConfig(config);
    // The environment-variable fallbacks of the trajectory modes are checked here too.
    const checkpoint = checkpointMode(config.trajectory);
    groundingMode(config.trajectory);
    this.name = config.name;
    // The checkpoint mode's variable is read here, once: a call reads no environment.
    this.config = Object.freeze(config.trajectory?.checkpoint !== undefined ? { ...config } : { ...config, trajectory: { ...config.trajectory, checkpoint } });
    this.clientRef = config.client;
    this.cacheRef = config.cache;
    this.explicitAncestry = config.goalAncestry ? { ...config.goalAncestry } : null;
  }

  /** Sets (or, with null, clears) the explicit goal ancestry for later calls. */
  setGoalAncestry(ancestry: GoalAncestry | null): void {
    validateGoalAncestry(ancestry, this.name);
    this.explicitAncestry = ancestry === null ? null : { ...ancestry };
  }

  /**
   * The ancestry a call made now would use: derived from the running workflow's chain (nearest
   * declaration per level), explicit values winning, redacted field values masked, cleaned.
   */
  goalAncestry(): GoalAncestry {
    const workflow = getCurrentWorkflow();
    const own = callSecrets(workflow, this.config.env ?? {});
    return this.ancestryFor(workflow, workflow === undefined ? own : runMasker(workflow).with(own.secrets), false);
  }

  /** `fresh`: only the ancestry set on this agent, nothing derived from the workflows around the call. */
  private ancestryFor(workflow: Workflow | undefined, secrets: SecretMasker, fresh: boolean): GoalAncestry {
    const merged = mergeAncestry(fresh ? {} : deriveGoalAncestry(workflow), this.explicitAncestry);
    return normalizeAncestry(maskAncestry(merged, secrets));
  }

  /** How often the `# Why You're Here` section was rendered vs reused unchanged. */
  get promptSectionStats(): { readonly rendered: number; readonly reused: number } {
    return this.systemPrompt.sectionStats;
  }

  /** Asks and resolves to the answer, validated by the prompt's schema. */
  prompt<T>(prompt: Prompt<T>, overrides?: PromptOverrides): Promise<T> {
    // `execute` without its duration and result copy: a cache hit is mostly this path's overhead.
    // With what it needs loaded (every call but the first) no async frame of its own.
    if (this.mustLoad(prompt, overrides)) return this.promptLoading(prompt, overrides);
    try {
      return runCall(this.prepare(prompt, overrides, undefined, this.clientRef)).then(valueOf);
    } catch (error) {
      // Bad input is a rejection, as from any async call, never a throw.
      return Promise.reject(error);
    }
  }

  /** `prompt` on a first call: what it needs is loaded first. */
  private async promptLoading<T>(prompt: Prompt<T>, overrides: PromptOverrides | undefined): Promise<T> {
    await this.load(prompt, overrides);
    // Asked again right before the call is prepared, with no await between: it gets a client if it needs one.
    const client = this.clientRef ?? (this.needsClient(prompt, overrides) ? await this.defaultClient() : undefined);
    return (await runCall(this.prepare(prompt, overrides, undefined, client))).value;
  }

  /** Whether a call must load something first: zod, or the default client for a call on the Anthropic client. */
  private mustLoad(prompt: Prompt<unknown>, overrides: PromptOverrides | undefined): boolean {
    return !zodReady() || (this.clientRef === undefined && this.needsClient(prompt, overrides));
  }

  /**
   * Whether the call runs on the Anthropic client: a call on a provider model neither makes the
   * default client nor loads the SDK (about a tenth of a second on a first call). Bad input says
   * yes, so `prepare` reports it as it always did.
   */
  private needsClient(prompt: Prompt<unknown>, overrides: PromptOverrides | undefined): boolean {
    if (!(prompt instanceof Prompt)) return true;
    try {
      // A model object on the prompt or the agent: read off the settings every call reuses.
      if (overrides === undefined && this.promptSettings(prompt).languageModel !== undefined) return false;
      return this.resolve(prompt, overrides).languageModel === undefined;
    } catch {
      return true;
    }
  }

  /** What a first call waits for, loaded together: zod, and the default client if it needs one. */
  private async load(prompt: Prompt<unknown>, overrides: PromptOverrides | undefined): Promise<void> {
    const client = this.clientRef === undefined && this.needsClient(prompt, overrides) ? this.defaultClient() : undefined;
    await Promise.all([client, zodReady() ? undefined : loadZodChecked()]);
  }

  /**
   * `prompt` with reflection on (unless the prompt turns it off): a failed attempt is critiqued
   * and retried with the revision, up to the configured (or default) attempts.
   */
  async reflect<T>(prompt: Prompt<T>, overrides?: PromptOverrides): Promise<T> {
    const configured = this.config.enableReflection;
    // The agent's options (attempts) are kept when it has them; a plain true/false becomes on.
    const enableReflection = overrides?.enableReflection ?? (typeof configured === 'object' ? configured : true);
    return this.prompt(prompt, { ...overrides, enableReflection });
  }

  /** Like `prompt`, with the usage, tool calls, turns and duration of the call. */
  async execute<T>(prompt: Prompt<T>, overrides?: PromptOverrides): Promise<AgentResult<T>> {
    if (this.mustLoad(prompt, overrides)) await this.load(prompt, overrides);
    const client = this.clientRef ?? (this.needsClient(prompt, overrides) ? await this.defaultClient() : undefined);
    const call = this.prepare(prompt, overrides, undefined, client);
    const started = call.tree.now();
    const outcome = await runCall(call);
    return { ...outcome, duration: call.tree.now() - started };
  }

  /** Streams text, tool and usage events; the last event (and `finalValue()`) is the validated answer. */
  stream<T>(prompt: Prompt<T>, overrides?: PromptOverrides): AgentStream<T> {
    return new AgentStream<T>(async (emit) => {
      if (this.mustLoad(prompt, overrides)) await this.load(prompt, overrides);
      const client = this.clientRef ?? (this.needsClient(prompt, overrides) ? await this.defaultClient() : undefined);
      const call = this.prepare(prompt, overrides, emit, client);
      const outcome = await runCall(call);
      return outcome.value;
    });
  }

  /**
   * The settings a call made now would use: prompt > overrides > agent > defaults, field by field;
   * a `provider/model` name resolved through the providers in reach.
   */
  resolve(prompt: Prompt<unknown>, overrides?: PromptOverrides): ResolvedSettings {
    return this.named(resolveSettings(prompt.settings, overrides, this.config), prompt, overrides, getCurrentWorkflow());
  }

  /** `settings` with a `provider/model` name resolved (the agent's providers first, then the workflows'). */
  private named(settings: ResolvedSettings, prompt: Prompt<unknown>, overrides: PromptOverrides | undefined, workflow: Workflow | undefined): ResolvedSettings {
    if (settings.languageModel !== undefined || !isModelName(settings.model)) return settings;
    const model = modelOfName(settings.model, this.config.providers, providersAround(workflow));
    let byModel = this.settingsByModel.get(settings);
    const known = byModel?.get(model);
    if (known !== undefined) return known;
    const bound = Object.freeze(withNamedModel(settings, settings.model, model, [prompt.settings, overrides, this.config]));
    if (byModel === undefined) this.settingsByModel.set(settings, (byModel = new Map()));
    byModel.set(model, bound);
    return bound;
  }

  /**
   * `resolve(prompt)` without overrides, once per prompt settings object: both layers are frozen,
   * so the result cannot change (it is frozen too, as it is shared by every call of the prompt).
   */
  private promptSettings(prompt: Prompt<unknown>): ResolvedSettings {
    let settings = this.settingsByPrompt.get(prompt.settings);
    if (settings === undefined) {
      settings = Object.freeze(this.resolve(prompt));
      this.settingsByPrompt.set(prompt.settings, settings);
    }
    return settings;
  }

  private prepare<T>(
    prompt: Prompt<T>,
    overrides: PromptOverrides | undefined,
    onStream: ((event: AgentStreamEvent<T>) => void) | undefined,
    /** Undefined only for a call on a provider model. */
    client: Anthropic | undefined,
  ): PromptCall<T> {
    if (!(prompt instanceof Prompt)) {
      throw new UsageError(`agent.prompt() needs a Prompt (createPrompt({...})), got ${describeValue(prompt)}.`);
    }
    if (overrides !== undefined) validateOverrides(overrides, this.name);
    const workflow = getCurrentWorkflow();
    const settings = this.named(
      overrides === undefined ? this.promptSettings(prompt) : resolveSettings(prompt.settings, overrides, this.config),
      prompt,
      overrides,
      workflow,
    );
    // Only an options object can be invalid: no label is built for the usual boolean or unset.
    if (settings.enableReflection !== undefined && typeof settings.enableReflection !== 'boolean') {
      reflectionAttempts(settings.enableReflection, `agent "${this.name}"`);
    }
    // The judge, reflection passes and the plan drafter see nothing of the run they are called from.
    const fresh = startsFresh(this, prompt);
    // The call's secrets (redacted values along the chain, env values), read once per call. The
    // run learns them, so whatever it stores from now on (events, logs, errors) is masked; the
    // call masks its ancestry, trajectory and cache with all the run knows (a child agent called
    // from a tool thus masks its parent's env too).
    const own = callSecrets(workflow, settings.env);
    if (workflow !== undefined) addRunSecrets(workflow, own);
    const secrets = workflow === undefined ? own : runMasker(workflow);
    const goalAncestry = this.ancestryFor(workflow, secrets, fresh);
    // Guidance from a workflow-level reflection on the step this call runs in (its retry).
    const stepGuidance = fresh ? [] : guidanceAt(currentScope()?.node);
    const turnFeatures = turnFeaturesFor({
      agentName: this.name,
      config: this.config,
      prompt,
      settings,
      goalAncestry,
      secrets,
      fresh,
    });
    const featureSections = sectionsOf(turnFeatures);
    const planFor = (current: Prompt<T>, guidance: readonly string[]): RequestPlan => {
      const system = this.systemPrompt.build(
        current.settings === prompt.settings ? settings : this.resolve(current, overrides),
        goalAncestry,
        guidance,
        featureSections,
      );
      return {
        model: settings.model,
        system: system.text,
        systemParam: system.param,
        systemSections: system.sections,
        goalAncestry,
        userContent: buildUserContent(current),
        maxTokens: settings.maxTokens,
        temperature: settings.temperature,
        stop: settings.stop,
      };
    };
    const tree = CallTree.open('agentPrompt', this.nodeName(maskedPromptName(prompt, secrets)));
    // A call on the Anthropic client has one: every caller asks `needsClient` with no await before this.
    const model = settings.languageModel === undefined ? anthropicAdapter(client as Anthropic) : providerAdapter(settings.languageModel);
    const cache = settings.enableCache !== false ? this.cache() : undefined;
    const cacheConfigured = this.config.cache !== undefined || (this.config.enableCache ?? false) !== false;
    // A literal, not a spread of the frozen ZERO_USAGE (a slow copy, on every call).
    const meter = { usage: zeroUsage(), turns: 0 };
    const budgets = callBudgets(tree, this.name, this.config.budget, prompt.budget, prompt.name, chargedBudgets(prompt));
    // Each revision builds on the last: its rewritten request and all guidance so far. One literal
    // per call, not a spread of a shared object (a cache hit is mostly this path's cost).
    const callFor = (current: Prompt<T>, guidance: readonly string[]): PromptCall<T> => ({
      turnFeatures,
      secrets,
      agentName: this.name,
      promptId: prompt.id,
      settings,
      model,
      cache,
      cacheConfigured,
      pricing: this.config.pricing,
      missingPrice: this.missingPrice,
      tree,
      meter,
      budgets,
      onStream,
      reflector: this.reflectorOf,
      prompt: current,
      plan: planFor(current, guidance),
      revise: (revision) =>
        callFor(revision.user === null ? current : current.withUser(revision.user), [...guidance, revision.guidance]),
    });
    return callFor(prompt, stepGuidance);
  }

  /**
   * The name of a call's node for a prompt named `promptName`: the last one reused while the
   * prompt's name is the same, so the nodes of a prompt's calls share one string (each node keeps
   * its name; a new one per call is ~60 bytes more on every node).
   */
  private nodeName(promptName: string): string {
    if (promptName !== this.lastPromptName) {
      this.lastPromptName = promptName;
      this.lastNodeName = `${this.name}: ${promptName}`;
    }
    return this.lastNodeName;
  }

  /** The agent that reflects on this agent's failed calls: same client and model, no tools. */
  private reflector(): Agent {
    return (this.reflectorRef ??= new Agent({
      name: `${this.name} (reflection)`,
      ...(this.clientRef !== undefined ? { client: this.clientRef } : {}),
      model: this.config.model ?? AGENT_DEFAULTS.model,
      ...(this.config.pricing ? { pricing: this.config.pricing } : {}),
      ...(this.config.providers ? { providers: this.config.providers } : {}),
    }));
  }

  /** `new Anthropic()` on the first call without a configured client; loads the SDK then. */
  private async defaultClient(): Promise<Anthropic> {
    const { Anthropic: Client } = await loadAnthropicRuntime();
    return (this.clientRef ??= new Client());
  }

  private cache(): Cache {
    return (this.cacheRef ??= new LruCacheStore());
  }
}

/** Runs the call through the pipeline, in its node's scope, with its own budgets' wallMs running. */
function runCall<T>(call: PromptCall<T>): Promise<PromptOutcome<T>> {
  // Most calls have no budget: no extra promise for them (a cache hit is mostly overhead).
  if (call.budgets.length === 0) return call.tree.run(() => callPipeline()(call));
  const stop = armCallBudgets(call.tree, call.budgets);
  // Budgets without a wallMs of the call's own have nothing to stop: no extra promise either.
  if (stop === undefined) return call.tree.run(() => callPipeline()(call));
  return call.tree.run(() => callPipeline()(call)).finally(stop);
}

function valueOf<T>(outcome: PromptOutcome<T>): T {
  return outcome.value;
}

/** The system sections the call's features contribute, in their order (none: no array). */
function sectionsOf(features: readonly TurnFeature[]): readonly string[] {
  let sections: string[] | undefined;
  for (const feature of features) {
    if (feature.systemSection !== undefined && feature.systemSection !== '') (sections ??= []).push(feature.systemSection);
  }
  return sections ?? NO_SECTIONS;
}

const NO_SECTIONS: readonly string[] = [];

export function createAgent(config: AgentConfig): Agent {
  return new Agent(config);
}
