import type { CacheSetting } from '../cache/cache-options.js';
import type { McpServerConfig } from '../mcp/mcp-config.js';
import type { ReflectionSetting } from './config/reflection-config.js';
import type { Tool } from '../tools/tool.js';
import type { AgentHooks } from './hooks.js';
import type { Skill } from './skill.js';
import { isLanguageModel, type LanguageModelLike } from './model/language-model.js';

/** How the structured answer is requested: the API's JSON-schema output, or a forced tool call. */
export type StructuredOutputMode = 'native' | 'tool';

/**
 * Everything that can be set on an agent and overridden per call or per prompt. The cascade is
 * per field: prompt > call overrides > agent config > defaults; a set field replaces, never merges.
 */
export interface AgentSettings {
  system?: string;
  /**
   * An Anthropic model id (sent through the agent's client); a `provider/model` name of a
   * registered provider (`'ollama/llama3.2'`, see `providers`); or a language model object of the
   * AI SDK provider specification (v2, v3 or v4): any provider, local servers included.
   */
  model?: string | LanguageModelLike;
  maxTokens?: number;
  /** Sent only when set (some models do not accept it). */
  temperature?: number;
  stop?: readonly string[];
  tools?: readonly Tool[];
  mcps?: readonly McpServerConfig[];
  skills?: readonly Skill[];
  hooks?: AgentHooks;
  /** Reaches tools and MCP servers for this call only; process.env is never changed. */
  env?: Readonly<Record<string, string>>;
  /**
   * Answer identical requests from the cache: true, or `{ ignore, refresh }` (also on; see
   * CacheOptions). A set value replaces, so a prompt's `true` counts every part again.
   */
  enableCache?: CacheSetting;
  /** Reflect on a failed call and retry it with the revision (true, or `{ maxAttempts }`). */
  enableReflection?: ReflectionSetting;
  /** Model requests per call before the tool loop gives up. */
  maxTurns?: number;
  structuredOutput?: StructuredOutputMode;
}

export type PromptOverrides = AgentSettings;

export type ResolvedSettings = Required<Omit<AgentSettings, 'system' | 'temperature' | 'stop' | 'model'>> &
  Pick<AgentSettings, 'system' | 'temperature' | 'stop'> & {
    /** The model's id: the Anthropic model, or the provider model's `modelId`. */
    readonly model: string;
    /** The provider model the call runs on; undefined for the Anthropic client. */
    readonly languageModel: LanguageModelLike | undefined;
    /** The `provider/model` name the model was given by, when it was. */
    readonly modelName?: string;
  };

export const AGENT_DEFAULTS: Readonly<ResolvedSettings> = Object.freeze({
  model: 'claude-sonnet-5-5',
  maxTokens: 4096,
  tools: [],
  mcps: [],
  skills: [],
  hooks: {},
  env: {},
  enableCache: false,
  enableReflection: false,
  maxTurns: 10,
  structuredOutput: 'native',
  languageModel: undefined,
});

const SETTING_KEYS = [
  'system',
  'model',
  'maxTokens',
  'temperature',
  'stop',
  'tools',
  'mcps',
  'skills',
  'hooks',
  'env',
  'enableCache',
  'enableReflection',
  'maxTurns',
  'structuredOutput',
] as const satisfies ReadonlyArray<keyof AgentSettings>;

/** The first defined value per field, from the most specific layer to the least. */
export function resolveSettings(...layers: ReadonlyArray<AgentSettings | undefined>): ResolvedSettings {
  const out: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    for (const layer of layers) {
      const value = layer?.[key];
      if (value !== undefined) {
        out[key] = value;
        break;
      }
    }
    if (out[key] === undefined && key in AGENT_DEFAULTS) out[key] = AGENT_DEFAULTS[key as keyof ResolvedSettings];
  }
  const model = out.model;
  if (isLanguageModel(model)) return withModel(out as ResolvedSettings, model, structuredOutputChosen(layers));
  out.languageModel = undefined;
  return out as ResolvedSettings;
}

/**
 * The settings of a call whose model was named `provider/model`, once the name is resolved: to a
 * provider's language model, or to an Anthropic id (`anthropic/<id>` with no provider of that name).
 */
export function withNamedModel(
  settings: ResolvedSettings,
  name: string,
  model: LanguageModelLike | string,
  layers: ReadonlyArray<AgentSettings | undefined>,
): ResolvedSettings {
  if (typeof model === 'string') return { ...settings, model, languageModel: undefined, modelName: name };
  return { ...withModel({ ...settings }, model, structuredOutputChosen(layers)), modelName: name };
}

function withModel(settings: ResolvedSettings, model: LanguageModelLike, chosen: boolean): ResolvedSettings {
  const out = settings as { -readonly [K in keyof ResolvedSettings]: ResolvedSettings[K] };
  out.model = model.modelId;
  out.languageModel = model;
  // The answer comes as JSON under the schema only where the model promises it; else a forced tool.
  if (!chosen) out.structuredOutput = (model as { supportsStructuredOutputs?: unknown }).supportsStructuredOutputs === true ? 'native' : 'tool';
  return out;
}

function structuredOutputChosen(layers: ReadonlyArray<AgentSettings | undefined>): boolean {
  return layers.some((layer) => layer?.structuredOutput !== undefined);
}
